package wasm

import (
	"fmt"
	"sync"
)

// Patched for agentry (web/diagram/graphviz/PATCH.md): upstream compiles and
// instantiates the WebAssembly module in this package's init, so every
// program that links the binding pays tens of milliseconds and tens of
// megabytes at start whether it draws or not. Here the module starts on
// first use: the entry points (gvc.New, gvc.NewWithPlugins,
// gvc.DefaultPlugins, cgraph.ParseBytes, cgraph.Open, cdt.Open,
// SetWasmFileSystem) call Start, and what other packages did in their init
// with the module runs from OnStart hooks after it.

var (
	startOnce sync.Once
	startErr  error
	onStart   []func() error
)

// OnStart registers f to run once, right after the module starts. Call it
// from package init only.
func OnStart(f func() error) { onStart = append(onStart, f) }

// Start compiles and instantiates the module once per process and runs the
// OnStart hooks; later calls return the first call's error.
func Start() error {
	startOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				startErr = fmt.Errorf("graphviz: start the WebAssembly module: %v", r)
			}
		}()
		instantiate()
		for _, f := range onStart {
			if err := f(); err != nil {
				startErr = err
				return
			}
		}
	})
	return startErr
}
