package raid

// CrashHook, when set, is called at each named step of a rebuild (replace
// or stale re-add) once that step's writes are durable. dit points it at
// its crash-test package (kill -9 at a named step); the raid package
// itself depends on nothing of dit's.
var CrashHook func(step string)

func hit(step string) {
	if h := CrashHook; h != nil {
		h(step)
	}
}

// Rebuild steps, in order, per role being rebuilt ("raid: " + ...).
const (
	StepRebuildStarted  = "raid: member rebuilding"               // superblocks say rebuilding
	StepChunkRebuilt    = "raid: chunk rebuilt"                   // one file's chunk durable on the blade
	StepManifestWidened = "raid: manifest lists the rebuilt role" // new generation on the other blades
	StepFileRebuilt     = "raid: file rebuilt"                    // manifest on the rebuilt blade: file done
	StepMemberActive    = "raid: member active"                   // superblocks say active
)
