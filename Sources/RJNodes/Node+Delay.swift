import Dispatch

extension Node {
    /// A node that receives each value `interval` seconds later, on `queue`. A zero or negative
    /// interval is a programming error.
    ///
    /// ```swift
    /// let b = a.delay(1, queue: .global())
    /// ```
    public func delay(_ interval: Double, queue: DispatchQueue) -> Node<Value> {
        if !(interval > 0) { fatalError("RJNodes: delay needs a positive interval in seconds, got \(interval)") }
        return derive { value, downstream in
            let context = GraphEngine.shared.context  // travels with the value
            queue.asyncAfter(deadline: .now() + interval) { downstream.receive(value, context: context) }
        }
    }

    /// `delay(interval, queue: .main)`.
    ///
    /// ```swift
    /// let c = a.delayOnMainQueue(2)
    /// ```
    public func delayOnMainQueue(_ interval: Double) -> Node<Value> {
        delay(interval, queue: .main)
    }
}
