extension Node {
    /// A node holding `transform` of each value of this one, computed synchronously as the
    /// value arrives (and at once for the current value, if any).
    ///
    /// ```swift
    /// let a = MutableNode(1)
    /// let b = a.map { "\($0)" }   // b.value == "1"
    /// a.value = 2                 // b.value == "2"
    /// ```
    @inlinable
    public func map<Result: Sendable>(_ transform: @escaping @Sendable (Value) -> Result) -> Node<Result> {
        derive { value, downstream in downstream.receive(transform(value)) }
    }

    /// A node that receives `replacement` every time this node receives a value. The node
    /// holds `replacement` strongly: beware of cycles.
    ///
    /// ```swift
    /// a.mapReplace("ding, a value!").listenedBy(self).withBlock { print($0) }
    /// ```
    @inlinable
    public func mapReplace<Result: Sendable>(_ replacement: Result) -> Node<Result> {
        derive { _, downstream in downstream.receive(replacement) }
    }
}
