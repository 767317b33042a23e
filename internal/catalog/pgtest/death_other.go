//go:build !linux

package pgtest

import "syscall"

func setParentDeath(*syscall.SysProcAttr) {}
