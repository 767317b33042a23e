package cloud

// parentDeath: the kernel kills rclone when dit dies (kill -9, a crash;
// every rclone is started through internal/tether): an upload never goes
// on behind a job that is not running, and a resume is the only thing
// that takes it up again.
const parentDeath = true
