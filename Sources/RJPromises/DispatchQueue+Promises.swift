import Dispatch
import RJLocks

private let defaultQueue = RJLockedValue<DispatchQueue>(.main)

extension DispatchQueue {
    /// The queue promise blocks run on when no `on:` is given: the main queue unless changed,
    /// as in google/promises.
    ///
    /// On Linux the main queue runs only under `dispatchMain()` or a running main `RunLoop`; a
    /// command-line program or server that does neither sets this once, at start-up, to a
    /// global queue:
    ///
    /// ```swift
    /// DispatchQueue.promises = .global()
    /// ```
    public static var promises: DispatchQueue {
        get { defaultQueue.withLockedValue { $0 } }
        set { defaultQueue.withLockedValue { $0 = newValue } }
    }
}
