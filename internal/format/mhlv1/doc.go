// Package mhlv1 writes and reads legacy MHL v1.1 media hash lists, for
// pipelines that predate ASC MHL.
//
// # On disk
//
// One file at the root of the folder it covers (a card's folder on a
// destination), named <folder>_<YYYY-MM-DD>_<HHMMSS>.mhl after its creation
// time in UTC. It is UTF-8 XML, valid against MediaHashList_v1_1.xsd.
// The schema's <size> is a positiveInteger, so an empty file cannot be
// listed: dit leaves empty files out and names them in an XML comment
// after <creatorinfo> (the ASC MHL history lists them). Other tools write
// <size>0</size>, which the schema rejects (ocopy's --legacy-mhl, as of
// 0.9.2); a list of empty files only is not written:
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<hashlist version="1.1">
//	  <creatorinfo>
//	    <username>dit</username> <hostname>cart-1</hostname>
//	    <tool>dit 1.0.0</tool>
//	    <startdate>2026-11-20T09:30:00Z</startdate>
//	    <finishdate>2026-11-20T10:02:13Z</finishdate>
//	  </creatorinfo>
//	  <hash>
//	    <file>Clips/A001C001.mov</file> <size>1234</size>
//	    <lastmodificationdate>2026-11-20T08:12:00Z</lastmodificationdate>
//	    <md5>...</md5> <sha1>...</sha1> <xxhash64be>...</xxhash64be>
//	    <hashdate>2026-11-20T10:01:55Z</hashdate>
//	  </hash>
//	</hashlist>
//
// Only md5, sha1 and xxh64 exist in MHL v1.1; xxh64 is written as
// <xxhash64be> (the same text as ASC MHL's xxh64: 16 hex digits of the
// big-endian value). The deprecated little-endian <xxhash64> and the
// decimal XXH32 <xxhash> are never written. Dates are UTC with "Z". A name
// that XML cannot carry (not UTF-8, or a control character other than tab,
// LF, CR) is written in the readable %XX form of ascmhl.DisplayName: MHL
// v1.1 has no place for its exact bytes. Every other name is written as
// it is (NFC and NFD as on disk, "\", ":", "*", "?", "<", ">", "|",
// spaces, tab, LF and CR; "&", "<", ">" and the control characters XML
// carries are escaped). The folder's part of the file name is cut to
// ascmhl.MaxFolderPart bytes (at a character boundary), so the name and
// its temporary name fit in 255 bytes.
//
// # Reading
//
// [Read] streams a list (any MHL v1.x: dit's, o/COPY's --legacy-mhl, other
// tools'), and [Verify] checks a folder against every list at its top
// ([Find]): each listed file must be there with its size and every
// hash the list gives: md5 and sha1 (hex, either case), xxhash64be (the
// ASC MHL xxh64 text), the deprecated little-endian xxhash64 (either byte
// order is accepted), the decimal XXH32 xxhash, and null (size only);
// other elements are warnings. A path with a "\" names the entry of that
// exact name when the folder holds one (a Linux or macOS name may hold
// "\", and dit writes names as they are); else "\" is taken as a
// separator (lists written on Windows). A path with a "%" that names no
// entry is read as a readable form (%XX a byte) and names the entry of
// the decoded name when the folder holds it, so dit's own list verifies a
// name XML cannot carry. (Where a folder holds both such a name and a name
// that is literally its readable form, both entries are checked against
// the literal one: the other is reported changed, unless its bytes are
// the same.) A path that leaves the folder is refused. The empty files dit names in its
// comment must be there and empty. Files no list names are a warning (a
// list names what was copied). Only the listed names are held, so a list
// of any size verifies in memory proportional to its file count.
// `dit mhl verify` uses it for a folder with no ASC MHL history.
//
// Like the rest of internal/format it knows nothing of the engine: it
// imports only its sibling format packages (ascmhl for names and
// DisplayName, ignore for the default ignore list) and internal/hashing.
package mhlv1
