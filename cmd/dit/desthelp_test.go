package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// -d's help says what happens to a cloud destination as the engine does
// it (docs/cloud.md "The flow"): uploaded from the verified first copy
// beside a folder, streamed from the card when every destination is in
// the cloud; not "from its verified local copy" always.
func TestDestHelpSaysHowACloudCopyIsMade(t *testing.T) {
	u := newOffloadCommand(&GlobalOptions{}).Flags().Lookup("dest").Usage
	require.Contains(t, u, "beside a folder, each card is uploaded from its verified copy there (a second run)")
	require.Contains(t, u, "with only cloud destinations, each card is streamed from the card as it is read")
	require.NotContains(t, u, "verified local copy to a remote")
}
