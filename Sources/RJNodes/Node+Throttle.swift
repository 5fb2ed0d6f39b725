import Dispatch
import RJLocks

extension Node {
    /// A node that receives a value only after `interval` seconds have passed without a newer
    /// one, on `queue`: a burst of values gives its last one. (The seed's search box: typing
    /// "hello" quickly searches for "hello" once.) A zero or negative interval is a programming
    /// error. The queue is the first, defaulted parameter, `on:`, as in every timed operator of
    /// the package (promises' `delay(on:_:)` too).
    ///
    /// ```swift
    /// let search = input.throttle(1)                  // on the main queue
    /// let background = input.throttle(on: queue, 1)
    /// ```
    public func throttle(on queue: DispatchQueue = .main, _ interval: Double) -> Node<Value> {
        if !(interval > 0) { fatalError("RJNodes: throttle needs a positive interval in seconds, got \(interval)") }
        let generation = RJAtomic<UInt64>(0)
        return derive { value, downstream in
            let mine = generation.add(1, ordering: .acquiringAndReleasing).newValue
            let context = GraphEngine.shared.context  // travels with the value
            queue.asyncAfter(deadline: .now() + interval) { [weak downstream] in
                guard let downstream, generation.load(ordering: .acquiring) == mine else { return }
                downstream.receive(value, context: context)
            }
        }
    }
}
