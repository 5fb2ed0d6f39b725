import Dispatch
import Synchronization

extension Node {
    /// A node that receives a value only after `interval` seconds have passed without a newer
    /// one, on `queue`: a burst of values gives its last one. (The seed's search box: typing
    /// "hello" quickly searches for "hello" once.) A zero or negative interval is a programming
    /// error.
    ///
    /// ```swift
    /// let search = input.throttle(1, queue: .main)
    /// ```
    public func throttle(_ interval: Double, queue: DispatchQueue) -> Node<Value> {
        if !(interval > 0) { fatalError("RJNodes: throttle needs a positive interval in seconds, got \(interval)") }
        let generation = Atomic<UInt64>(0)
        return derive { value, downstream in
            let mine = generation.add(1, ordering: .acquiringAndReleasing).newValue
            let context = GraphEngine.shared.context  // travels with the value
            queue.asyncAfter(deadline: .now() + interval) { [weak downstream] in
                guard let downstream, generation.load(ordering: .acquiring) == mine else { return }
                downstream.receive(value, context: context)
            }
        }
    }

    /// `throttle(interval, queue: .main)`.
    ///
    /// ```swift
    /// let search = input.throttleOnMainQueue(1)
    /// ```
    public func throttleOnMainQueue(_ interval: Double) -> Node<Value> {
        throttle(interval, queue: .main)
    }
}
