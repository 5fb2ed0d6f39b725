import RJLocks

extension Node {
    /// A node that takes every value of this node and of `others`. Its first value is that of
    /// the last of them that holds one (EasyReact's rule). In one set that changes several of
    /// them (a diamond), it takes one value, that of the last to change.
    ///
    /// ```swift
    /// let a = MutableNode(1), b = MutableNode(2)
    /// let c = a.merge(b)   // c.value == 2
    /// a.value = 3          // c.value == 3
    /// ```
    public func merge(_ others: Node<Value>...) -> Node<Value> {
        let inputs = [self] + others
        let node = Node<Value>(slot: .empty)
        let latest = MergeLatest<Value>()
        // Made once (no allocation per wave); unowned as in `combined`.
        let deliver: @Sendable () -> Void = { [unowned node] in
            if let value = latest.value.take() { node.receive(value) }
        }
        engine.lock.withLock {
            for input in inputs {
                node.feed(from: input, deliveringCurrent: false) { value, node in
                    latest.value = value
                    node.inputChanged(deliver)
                }
            }
            if let first = inputs.last(where: { !$0.isEmpty })?.value { node.receive(first) }
        }
        return node
    }
}

/// The value a merged node takes in the current wave. Guarded by the engine's lock.
final class MergeLatest<Value>: @unchecked Sendable {
    @exclusivity(unchecked) var value: Value?
}
