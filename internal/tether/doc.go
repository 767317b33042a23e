// Package tether starts child processes that die with dit.
//
// dit starts programs that must never outlive it: rclone (an upload going
// on behind a job that is not running would race the resume) and, in
// tests, S3 and PostgreSQL servers. On Linux the kernel's parent-death
// signal (prctl PR_SET_PDEATHSIG, SysProcAttr.Pdeathsig) kills such a
// child when its parent dies, including by kill -9.
//
// The kernel sends that signal when the *thread* that forked the child
// ends, not the process (golang/go#27505). Go ends a thread whenever a
// goroutine locked to it (runtime.LockOSThread) returns without unlocking,
// and any goroutine may run on any thread: a child forked from thread T
// by one goroutine was killed when, minutes later, another goroutine
// locked T and ended (dit's rclone daemon did so when it stopped, the
// proxies' low-priority start does so every time). Seen as an S3 test
// server gone mid-test ("connection refused"), and possible for an
// upload's rclone during a job.
//
// So every tethered child is forked from one thread that never ends: a
// goroutine locked to its thread for the life of the process, that forks
// on request (Start). Nothing else runs on that thread, so no other
// goroutine can end it. Elsewhere (no parent-death signal) Start is
// cmd.Start.
package tether
