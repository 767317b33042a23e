// Package seal holds the kill -9 test at every step of sealing a card's
// hash lists (DIT_CRASH_AT, internal/crashpoint: MHL v1.1 lists, ASC MHL
// manifests and chains, on a folder and a dit array): after each, no card
// is safe to format without a history the ASC reference tool accepts, and
// a resume finishes the job. The kills at the report steps are in
// cmd/dit/e2e/crash/report; the scenario is e2e.CrashAtEveryStep.
package seal
