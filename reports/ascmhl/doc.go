// Package ascmhl reads, writes and verifies ASC MHL histories (ASC Media
// Hash List v2.0, specification v1.0 of the American Society of
// Cinematographers): the proof that travels with a copy of a camera card.
//
// # On disk
//
// A history covers one folder (its scope; for dit, a card's folder on a
// destination) and lives in that folder's ascmhl/ sub-folder:
//
//	A001/                                  the scope
//	A001/ascmhl/0001_A001_2026-11-20_093000Z.mhl   generation 1 (a manifest)
//	A001/ascmhl/0002_A001_2026-11-21_140000Z.mhl   generation 2 (next hop)
//	A001/ascmhl/ascmhl_chain.xml           the chain: every generation and its c4
//
// A manifest is named NNNN_<folder>_<YYYY-MM-DD>_<HHMMSS>Z.mhl: the
// generation number (4 digits or more), the scope's folder name (characters
// that a file name or XML cannot carry become "_"), and the UTC start of the
// operation that wrote it. A manifest is never changed once written; the
// chain is rewritten with each new generation. Both are UTF-8 XML.
//
// Manifest (namespace urn:ASC:MHL:v2.0; element order as the schema wants):
//
//	<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
//	  <creatorinfo>
//	    <creationdate>2026-11-20T10:02:13Z</creationdate>
//	    <hostname>cart-1</hostname>
//	    <tool version="1.0.0">dit</tool>
//	    <comment>dit job 12 "Day01": card A001 copied from ... to ...</comment>
//	  </creatorinfo>
//	  <processinfo>
//	    <process>transfer</process>
//	    <roothash><content><md5>..</md5><xxh64>..</xxh64></content>
//	              <structure><md5>..</md5><xxh64>..</xxh64></structure></roothash>
//	    <ignore><pattern>.DS_Store</pattern><pattern>ascmhl</pattern><pattern>ascmhl/</pattern></ignore>
//	  </processinfo>
//	  <hashes>
//	    <hash>
//	      <path size="1234" lastmodificationdate="2026-11-20T08:12:00Z">Clips/A001C001.mov</path>
//	      <md5 action="original">..</md5>
//	      <xxh64 action="verified" hashdate="2026-11-20T10:01:55Z">..</xxh64>
//	    </hash>
//	    <directoryhash>
//	      <path lastmodificationdate="...">Clips</path>
//	      <content>...</content><structure>...</structure>
//	    </directoryhash>
//	  </hashes>
//	</hashlist>
//
// Paths are relative to the scope, "/"-separated, byte for byte as on disk
// (NFC and NFD names stay as they are); "&", "<", ">" and quotes are
// escaped by the XML writer, and tab, LF and CR are written as character
// references, so they read back exactly. A folder's path has no trailing
// slash (as the reference tool writes it). Hash elements come in the
// schema's order c4, md5, sha1, xxh128, xxh3, xxh64, each with an action
// (original, verified, failed) and, when known, a hashdate; sizes are
// always written (size="0" for an empty file); times are UTC. <hashes> is
// left out when there is nothing to list (an empty one fails the schema).
//
// Names XML cannot carry: a name that is not valid UTF-8 or holds a control
// character other than tab, LF and CR cannot appear in an XML document. Its
// <path> then holds a readable form (each such byte, and "%", as %XX; see
// [DisplayName]) and the record gets
//
//	<metadata><dit:pathbytes xmlns:dit="urn:dit-org:dit:mhl:v1" encoding="base64">...</dit:pathbytes></metadata>
//
// with the exact bytes; the schema allows any content in metadata. dit's
// reader uses those bytes; other tools see the readable form.
//
// Directory hashes follow the specification (DirectoryHashType, Appendix G)
// exactly as the reference tool computes them: a folder's content hash
// hashes its children's hash values (files' values, sub-folders' content
// hashes), decoded to bytes and sorted by their text; its structure hash
// hashes, sorted, hash(name bytes + value bytes) of each child, where a
// sub-folder contributes its structure hash. The root pair is the
// processinfo's roothash.
//
// Chain (namespace urn:ASC:MHL:DIRECTORY:v2.0):
//
//	<ascmhldirectory xmlns="urn:ASC:MHL:DIRECTORY:v2.0">
//	  <hashlist sequencenr="1">
//	    <path>0001_A001_2026-11-20_093000Z.mhl</path>
//	    <c4>c4...</c4>          the C4 id of the manifest file's exact bytes
//	  </hashlist>
//	</ascmhldirectory>
//
// # Writing
//
// [Append] writes a new generation: the manifest under a temporary name,
// synced, renamed (never replacing a file), then the chain the same way
// (replacing the old one), each folder synced; the chain is the commit
// point. It refuses to extend a damaged history. Everything goes through
// a [Store]: [OSStore] is an OS folder (through os.Root, so nothing leads
// outside it); a dit array destination plugs its logical folders in by
// implementing the same few methods, so that `dit array extract` and the
// FUSE view show a tree the reference tool accepts.
//
// # Reading and verifying
//
// [LoadHistory] reads the chain and every manifest it lists, checks each
// manifest's c4 against the chain, and reports as Problems a manifest that
// is missing, was edited, is not in the chain or is not a valid manifest
// (wrong root element, namespace or version; a missing required element;
// an invalid action, hash value, size or date; a path that is absolute or
// holds ".." — refused, never read). Hash formats ASC MHL does not define
// are skipped with a warning. [Verify] re-hashes every file of the scope
// and names each that is missing, changed, new (neither recorded nor
// ignored) or recorded only as failed; with DirectoryHashes it also checks
// the newest generation's folder and root hashes. Ignore patterns use the
// gitignore syntax of the specification's Appendix C ([Ignore]).
package ascmhl
