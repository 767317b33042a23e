package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/assembly"
)

// Usage errors (exit 2) in dit's words: every one names the flag (or
// argument) and the value given, and says what to give instead. They
// are found before the catalog is opened, so a mistake creates nothing.

// usageErr is err as a usage error (exit 2).
func usageErr(err error) error { return &exitError{code: ExitUsage, err: err} }

// usagef is a usage error of the message format, a.
func usagef(format string, a ...any) error { return usageErr(fmt.Errorf(format, a...)) }

// jobNumberHint says what a job number is.
const jobNumberHint = "give the job number shown by dit jobs (1, 2, ...)"

// parseJobNumber reads a job number: a whole number from 1 ("#12" as
// dit jobs prints it is 12).
func parseJobNumber(s string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	return id, err == nil && id > 0
}

// jobFlag is a flag taking a job number (--resume JOB, --job JOB):
// anything but a job number is refused in dit's words, naming the flag
// and the value. Not given, the number is 0.
type jobFlag struct{ id *int64 }

// errNotJob is jobFlag's refusal; flagError names the flag and value.
var errNotJob = errors.New("not a job number: " + jobNumberHint)

func (j jobFlag) String() string {
	if *j.id == 0 {
		return ""
	}
	return strconv.FormatInt(*j.id, 10)
}

func (j jobFlag) Set(s string) error {
	id, ok := parseJobNumber(s)
	if !ok {
		return errNotJob
	}
	*j.id = id
	return nil
}

func (j jobFlag) Type() string { return "JOB" }

// addJobFlag registers a job-number flag into id.
func addJobFlag(f *pflag.FlagSet, id *int64, name, usage string) {
	f.Var(jobFlag{id}, name, usage)
}

// flagError is every command's flag parsing error as a usage error: a
// value pflag could not read is said in dit's words (the flag, the
// value, what to give) rather than strconv's.
func flagError(c *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		f := ive.GetFlag()
		err = fmt.Errorf("--%s %q: %s", f.Name, ive.GetValue(), valueHint(f, errors.Unwrap(ive)))
	}
	return usageErr(fmt.Errorf("%w (see %s --help)", err, c.CommandPath()))
}

// valueHint says what flag f takes, after a value it could not read
// (cause: why).
func valueHint(f *pflag.Flag, cause error) string {
	if errors.Is(cause, errNotJob) {
		return cause.Error()
	}
	switch f.Value.Type() {
	case "int", "int64", "int32", "uint", "uint64":
		return "not a whole number: give one such as 1 or 4"
	case "float64", "float32":
		return "not a number: give one such as 0.5 or 2"
	case "duration":
		return "not a duration: give one such as 500ms, 2s or 1m"
	case "bool":
		return "give true or false (or the flag alone for true)"
	}
	return fmt.Sprint(cause)
}

// guardGroups makes every command that only groups others (dit job, dit
// mhl, dit array, dit completion, ...) refuse a subcommand it does not
// have (exit 2, naming it) instead of printing its help with exit 0;
// without one it prints its help. dit help TOPIC refuses an unknown
// topic as well.
func guardGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guardGroups(sub)
	}
	if c.Name() == "help" && c.HasParent() {
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			target, rest, err := cmd.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return usagef("dit help %s: no such command: run dit help for the list", strings.Join(args, " "))
			}
			return target.Help()
		}
		return
	}
	if !c.HasSubCommands() || c.Runnable() || !c.HasParent() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			return usagef("unknown command %q for %q: use one of %s (see %s --help)", args[0], cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
		}
		return cmd.Help()
	}
}

// checkJobName refuses a job name that would not be one folder
// (assembly.CheckJobName); what is how the name was given ("--name",
// "name: of preset FILE").
func checkJobName(what, name string) error {
	if err := assembly.CheckJobName(name); err != nil {
		return usagef("%s %s: %v", what, name, err)
	}
	return nil
}

// checkFileFlag refuses a flag naming a file that is not there or is a
// folder (exit 2).
func checkFileFlag(flag, path, what string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usagef("%s %s: no such file: give %s", flag, path, what)
	case err != nil:
		return usagef("%s %s: %v", flag, path, err)
	case fi.IsDir():
		return usagef("%s %s is a folder: give %s", flag, path, what)
	}
	return nil
}

// checkFolderArg refuses a folder argument or flag that is not there
// or not a folder (exit 2).
func checkFolderArg(what, path, hint string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usagef("%s %s does not exist: %s", what, path, hint)
	case err != nil:
		return usagef("%s %s: %v", what, path, err)
	case !fi.IsDir():
		return usagef("%s %s is not a folder: %s", what, path, hint)
	}
	return nil
}

// isDir says whether path is a folder there.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
