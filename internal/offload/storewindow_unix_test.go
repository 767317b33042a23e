//go:build unix

package offload

import "testing"

// The cloud runs' tests again with a window of one file (storeWindow):
// every file is uploaded in a window of its own and read back from the
// catalog after every later one went up, so each crosses a window's
// edge between its upload and its read-back:
//
//   - a card streamed, then the same card again (every object held: the
//     files are read and checked, nothing sent, in the sendFirst order
//     taken a window at a time);
//   - an object at a file's name before the run: failed as one this run
//     did not send (the mark kept from its upload to its read-back);
//   - a file whose upload is tried again (CLIPS/clip.mov, the card's
//     first, read back after the two others went up): verified against
//     the read that went up, its retries counted once;
//   - the card's history held back while a file is not verified there,
//     streamed, from a first copy in a folder (uploaded a window at a
//     time, sent in one transfer) and from an array, then written once
//     by the resume, its generation listing every file verified.
func TestStoreWindowsOfOneFile(t *testing.T) {
	old := storeWindow
	storeWindow = 1
	t.Cleanup(func() { storeWindow = old })
	for name, test := range map[string]func(*testing.T){
		"direct and again":    TestCardToCloudDirect,
		"object there before": TestCloudMismatchObjectThereBefore,
		"retried":             TestStreamedUploadIsTriedAgain,
		"history waits":       TestCloudHistoryWaitsForEveryFile,
		"bad first copy":      TestCloudMismatchBlamesBadFirstCopy,
	} {
		t.Run(name, test)
	}
}
