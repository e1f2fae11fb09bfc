// Package versions turns the changes of agent, workflow and skill files
// into versions in the trace store (docs/versions.md): a Recorder is the
// registry.OnChange hook a versioned folder calls, and the one place a
// registry.FileChanged becomes a trace.Version.
//
// Decisions:
//   - A change is recorded off the path of the save that made it. The hook
//     queues the change with the time it was seen and returns; 20 ms later
//     (batchAfter) one goroutine drains the queue in order, a batch at a
//     time, and ends when the queue is empty. Recording (a read of the
//     newest version, a diff summary of two YAML documents, one insert)
//     cost a save about 1 ms, on this machine as much as the save itself;
//     queued, a save costs what it did without versions
//     (BenchmarkSaveWithVersions in cmd/agentry). The wait matters on a
//     busy machine: a drain started at once woke a thread that the kernel
//     ran before the saving one, and the save still paid for it.
//   - Nothing is lost when the process dies between a save and its
//     version: the file is on disk, and the next command that loads the
//     folder finds that its content is not the newest version and records
//     it (source filesystem, the catch-up every command already does).
//   - Readers in the same process see their own saves: Reads wraps the
//     store so that every read of versions first waits for the changes
//     queued before it (the History page right after a save in the
//     browser). A command in another process reads what is committed.
//   - Close waits for the queue and then records changes synchronously, so
//     a change reported while a command shuts down is not dropped.
//
// It lives under delegation, the layer that may import both registry and
// trace, so cmd/agentry and the web's test harness share it.
package versions
