// Command oracle answers questions about what ARC's Go code computes, for
// the kubectl-arc Rust tests. It decodes Kubernetes JSON exactly like
// controller-runtime does and runs mirrors of ARC's legacy integrity hash,
// desired-spec builder and the Go equality functions on the result.
//
// Usage:
//
//	oracle          serve the line protocol on stdin/stdout (see README.md)
//	oracle layout   print the reflected type layout as indented JSON
//	oracle layout R the layout of ARC release R's roots (this binary must link R's pins)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 1:
		err = serve(os.Stdin, os.Stdout)
	case len(os.Args) == 2 && os.Args[1] == "layout":
		err = printLayout(os.Stdout, nil)
	case len(os.Args) == 3 && os.Args[1] == "layout":
		err = printLayout(os.Stdout, &os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: oracle [layout [ARC-RELEASE]]")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

// serve reads one JSON request per line and writes one JSON response per
// line, flushing after each, until EOF. Blank lines are ignored.
func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		line, readErr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := enc.Encode(handle(line)); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if errors.Is(readErr, io.EOF) {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

// printLayout prints the layout of the integrity-era roots, or of an ARC release's roots.
func printLayout(out io.Writer, release *string) error {
	l, err := buildLayout(layoutRoots)
	if release != nil {
		l, err = releaseLayout(release)
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}
