import Dispatch

extension Node {
    /// A node that receives each value `interval` seconds later, on `queue`. A zero or negative
    /// interval is a programming error. The queue is the first, defaulted parameter, `on:`.
    ///
    /// ```swift
    /// let b = a.delay(on: .global(), 1)
    /// ```
    public func delay(on queue: DispatchQueue = .main, _ interval: Double) -> Node<Value> {
        if !(interval > 0) { fatalError("RJNodes: delay needs a positive interval in seconds, got \(interval)") }
        return derive { value, downstream in
            let context = GraphEngine.shared.context  // travels with the value
            queue.asyncAfter(deadline: .now() + interval) { downstream.receive(value, context: context) }
        }
    }
}
