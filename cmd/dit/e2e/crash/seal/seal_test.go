package seal

import (
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// kill -9 at every step of sealing, on a plain folder and on a RAID 4
// array, then resume: the card is never "safe to format" without a history
// that dit and the ASC reference tool accept, the resume finishes the job
// (one generation per card folder, no temps left, reports written), and a
// resume after that writes nothing.
func TestCrashAtEverySealStep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dit at every seal step")
	}
	e2e.CrashAtEveryStep(t, func(step string) bool { return !e2e.ReportStep(step) }, []string{
		"ascmhl: manifest written#1", "store: temp written ascmhl_chain.xml#1", "store: temp written NNNN_ANNN_NNNN-NN-NN_NNNNNNZ.mhl#1",
		"seal: MHL v1.1 written#1", "card: sealing recorded#1", "card: sealed#2", "seal: destination sealed#4"})
}
