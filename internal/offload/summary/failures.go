package summary

// Failure names one failed file and why.
type Failure struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// FailuresListed is how many failed files a run's summary lists
// (CardSummary.Failures); the others are counted (FailuresMore).
const FailuresListed = 100

// addFailed lists the failed file at path (why: its error) while fewer
// than listed are, else counts it (FailuresMore); its advice is counted
// either way.
func (cs *CardSummary) addFailed(path, why string, listed int) {
	cs.Advice.note(why)
	if len(cs.Failures) >= listed {
		cs.FailuresMore++
		return
	}
	cs.Failures = append(cs.Failures, Failure{Path: path, Error: why})
}

// addOther lists what failed beside the run's files (its hash lists,
// its second run): always listed.
func (cs *CardSummary) addOther(path, why string) {
	cs.Advice.note(why)
	cs.Failures = append(cs.Failures, Failure{Path: path, Error: why})
}
