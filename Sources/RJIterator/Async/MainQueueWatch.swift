import CRJContext
import Dispatch
import RJLocks

// The watch on the first main-queue task of a process: a Linux command-line program that never
// runs the main queue would leave it waiting silently forever.

/// Whether the first `rj_async` task on the main queue is being watched (once per process).
private let mainQueueWatched = RJAtomic<Bool>(false)

/// The task a watch looks at, weakly: a task nobody holds any more is not reported.
private final class WatchedTask: @unchecked Sendable {
    weak var task: RJAsyncTask?
    init(_ task: RJAsyncTask) { self.task = task }
}

/// The first `rj_async` task on the main queue of a process: if its body has not started after
/// two seconds, nothing runs the main queue (a Linux command-line program that neither calls
/// `runMainLoop()` nor `dispatchMain()`), or something blocks it; the task would wait silently
/// forever, so say it, once. Nothing is checked for later tasks: one check tells.
func watchMainQueue(_ task: RJAsyncTask, file: StaticString, line: UInt) {
    // A load first: after the first task, every later one reads the flag without writing it.
    guard !mainQueueWatched.load(ordering: .relaxed), !mainQueueWatched.exchange(true, ordering: .relaxed) else { return }
    let watched = WatchedTask(task)
    DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
        guard let task = watched.task, task.isWaitingToStart else { return }
        rj_report("RJIterator: the rj_async task made at \(file):\(line) runs on the main queue and has not started after "
                  + "2 s: nothing runs the main queue, or something blocks it. A command-line program runs it with "
                  + "task.runMainLoop() or dispatchMain(); or pass a queue: rj_async(on: queue) { ... }")
    }
}
