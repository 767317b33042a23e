package verdict

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunState(t *testing.T) {
	live := Facts{Active: true, JobStored: "running"}
	ended := Facts{JobStored: "done"}
	killed := Facts{JobStored: "interrupted"}
	none := Facts{JobStored: "done", VerifyNone: true}
	ok := Run{Stored: "verified", AllVerified: true}
	for _, c := range []struct {
		name string
		f    Facts
		r    Run
		want State
	}{
		{"verified", ended, ok, Verified},
		{"verified while running", live, ok, Verified},
		{"verified but one copy not", ended, Run{Stored: "verified"}, Failed},
		{"verified, a failed file", ended, Run{Stored: "verified", AllVerified: true, Failed: 1}, Failed},
		{"verified, unreadable entries", ended, Run{Stored: "verified", AllVerified: true, Unreadable: true}, Failed},
		{"queued", live, Run{Stored: "pending"}, Queued},
		{"copying", live, Run{Stored: "copying"}, Copying},
		{"verifying", live, Run{Stored: "verifying"}, Verifying},
		{"sealing", live, Run{Stored: "sealing"}, Sealing},
		{"failed while running", live, Run{Stored: "failed"}, Failed},
		{"killed copying", killed, Run{Stored: "copying"}, Interrupted},
		{"killed sealing", killed, Run{Stored: "sealing"}, Interrupted},
		{"killed after it failed", killed, Run{Stored: "failed", Failed: 2}, Failed},
		// A process that ended leaves no state of work.
		{"ended sealing (hash lists not written)", ended, Run{Stored: "sealing"}, Failed},
		{"ended copying", ended, Run{Stored: "copying"}, Interrupted},
		{"ended pending", ended, Run{Stored: "pending"}, Interrupted},
		{"copied, verify none", none, Run{Stored: "copied"}, Copied},
		{"copied, verify none, failed file", none, Run{Stored: "copied", Failed: 1}, Failed},
		{"verify none never verified", none, Run{Stored: "verified", AllVerified: true}, Failed},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := RunState(c.f, c.r)
			require.Equal(t, c.want, got)
			if !c.f.Active {
				require.True(t, got.Ended(), "a job no process works on shows %s", got)
			}
		})
	}
}

func TestCardState(t *testing.T) {
	live := Facts{Active: true, JobStored: "running"}
	ended := Facts{JobStored: "done"}
	for _, c := range []struct {
		name          string
		f             Facts
		first         State
		cascade       bool
		second, wantS State
	}{
		{"plain verified", ended, Verified, false, "", Safe},
		{"plain failed", ended, Failed, false, "", Failed},
		{"plain copying", live, Copying, false, "", Copying},
		{"cascade first verified, second not started, running", live, Verified, true, "", CardFree},
		{"cascade first verified, second copying", live, Verified, true, Copying, CardFree},
		{"cascade both verified", ended, Verified, true, Verified, Safe},
		{"cascade second failed", ended, Verified, true, Failed, Failed},
		{"cascade second interrupted", ended, Verified, true, Interrupted, Interrupted},
		{"cascade second never started, ended", ended, Verified, true, "", Interrupted},
		{"cascade first failed", ended, Failed, true, "", Failed},
		{"cascade first still verifying", live, Verifying, true, "", Verifying},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := CardState(c.f, c.first, c.cascade, c.second)
			require.Equal(t, c.wantS, got)
			require.Equal(t, got == Safe, got.SafeToFormat())
			if !c.f.Active {
				require.True(t, got.Ended())
			}
		})
	}
}

func TestJobState(t *testing.T) {
	ended := Facts{JobStored: "done"}
	require.Equal(t, Running, JobState(Facts{Active: true, JobStored: "running"}, []State{Safe}, false))
	require.Equal(t, Done, JobState(ended, []State{Safe, Safe}, false))
	require.Equal(t, Done, JobState(Facts{JobStored: "done", VerifyNone: true}, []State{Copied}, false))
	require.Equal(t, Done, JobState(ended, nil, false), "nothing to copy")
	require.Equal(t, Failed, JobState(ended, []State{Safe, Failed}, false))
	require.Equal(t, Interrupted, JobState(Facts{JobStored: "finishing"}, []State{Safe}, true), "killed while the reports were written: resumable")
	require.Equal(t, Failed, JobState(Facts{JobStored: "failed"}, nil, false))
	require.Equal(t, Interrupted, JobState(Facts{JobStored: "interrupted"}, []State{Safe, Failed}, false))
	require.Equal(t, Interrupted, JobState(ended, []State{Safe, Interrupted}, false))
	for _, s := range []State{Running, Done, Failed, Interrupted} {
		require.Equal(t, s != Running, s.Ended())
	}
}
