package offload

import "github.com/dit-org/dit/internal/fsys"

// FS is the filesystem the job writes through: Options.FS, with every
// destination that is a dit array routed into the array once the job is
// prepared. Hooks that write next to the copies (Seal, AfterJob) must use
// it, so that what they write on an array lands in the array's logical
// folders and not in a blade folder.
func (j *Job) FS() fsys.FS { return j.opts.FS }
