package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Output paths are checked before any work starts: a digest, an evaluation or a fetch that
// ran for minutes must not fail at the end on a folder it could never write.

// checkOutDir makes sure dir, the folder named by flag (e.g. "--out"), exists or can be made
// and takes new files, and returns it as an absolute path. It makes the folder (as the command
// would at the end) and writes and removes a probe file in it.
func checkOutDir(flag, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("%s %s is a file, not a folder: name a folder (it is made if missing)", flag, dir)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("%s %s: cannot make the folder (%v); nothing was started", flag, dir, err)
	}
	if err := probeWrite(abs); err != nil {
		return "", fmt.Errorf("%s %s: cannot write in the folder (%v); nothing was started", flag, dir, err)
	}
	return abs, nil
}

// checkOutFile makes sure file, named by flag (e.g. "--html"), can be written: its folder
// exists and takes new files, and the file, if there, is a file that can be opened for
// writing. "-" (stdout) always can. Nothing is created or changed.
func checkOutFile(flag, file string) error {
	if file == "-" || file == "" {
		return nil
	}
	fi, err := os.Stat(file)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s %s is a folder: name a file", flag, file)
	case err == nil:
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s %s: cannot write the file (%v)", flag, file, err)
		}
		return f.Close()
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: %v", flag, file, err)
	}
	dir := filepath.Dir(file)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return fmt.Errorf("%s %s: its folder %s does not exist (make it first)", flag, file, dir)
	}
	if err := probeWrite(dir); err != nil {
		return fmt.Errorf("%s %s: cannot write in its folder %s (%v)", flag, file, dir, err)
	}
	return nil
}

// probeWrite creates and removes a file in dir.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".asof-write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
