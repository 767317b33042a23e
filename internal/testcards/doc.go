// Package testcards generates deterministic, realistic camera cards for
// demos, tests and benchmarks of dit.
//
// A generated card looks like what a DIT finds when a camera card is
// mounted on a Mac: a roll folder (A001, A002, ...) holding either a few
// large ARRI-style clip files with XML sidecars ("clips"), Sony
// X-OCN-style folders of thousands of per-frame files ("frames"), or
// both ("mixed"); a zero-byte file and an empty folder, which an offload
// must reproduce; and the macOS junk an offload must skip (.DS_Store,
// AppleDouble "._" files, .Spotlight-V100, .Trashes, .fseventsd). All
// junk paths have a path element beginning with ".", and nothing else does.
//
// Footage bytes are incompressible pseudo-random data derived from the
// seed, the card label and the file's path, so the same [Options] always
// produce byte-identical trees with the same names, sizes and
// modification times, while a different seed gives different content.
// Generation streams AES-CTR keystream in 4 MiB chunks through one reused
// buffer, so memory stays bounded and a 2 GB card takes a few seconds.
//
// With [Options.FFmpeg] (dit testdata cards --video, as make demo runs
// it) the clips' movies are real: ffmpeg makes a few seconds of one of
// its test sources as ProRes 4444 XQ in QuickTime, 320x180 at 24 fps,
// starting at the timecode the clip's XML sidecar gives, and a "free"
// atom of pseudo-random bytes pads the file to the clip's size, so the
// card has the names, sizes and modification times it has without, and
// reports get a poster frame a clip. The same ffmpeg gives the same
// bytes; X-OCN and DNG frames stay pseudo-random (ffmpeg cannot write
// them).
//
// Generate never overwrites anything: it refuses to write a card into a
// folder that already exists and is not empty.
//
// [MakeFamilyCards] makes, with ffmpeg, one small card per camera family
// in its folder structure, for the editorial lists' tests: ARRI (ProRes
// in MXF with mono PCM tracks and ARRI's clip XML, 23.976), Sony (XAVC-like
// MP4 with its M01.XML, 29.97 drop-frame; one XML disagrees with its
// media), Blackmagic (a BRAW stand-in with its .sidecar, and a ProRes
// movie named like it, 25) and RED (an .RDM/.RDC folder of R3D
// stand-ins), each clip with what a reader should find ([FamilyClip]).
package testcards
