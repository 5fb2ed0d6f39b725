import CRJContext
import Dispatch
import RJLocks

/// Whether the first `rj_async` task on the main queue is being watched (once per process).
private let mainQueueWatched = RJAtomic<Bool>(false)

/// The task a watch looks at, weakly: a task nobody holds any more is not reported.
private final class WatchedTask: @unchecked Sendable {
    weak var task: RJAsyncTask?
    init(_ task: RJAsyncTask) { self.task = task }
}

/// The first `rj_async` task on the main queue of a process: if its body has not started after
/// 2 s, nothing runs the main queue (or something blocks it): say it, once, for that task only.
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
