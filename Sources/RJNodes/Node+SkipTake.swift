import RJLocks

extension Node {
    /// A node that ignores the first `count` values (the current one, if any, counts).
    /// A negative count is a programming error.
    ///
    /// ```swift
    /// let b = a.skip(2)   // the third value is the first to pass
    /// ```
    @inlinable
    public func skip(_ count: Int) -> Node<Value> {
        if !(count >= 0) { fatalError("RJNodes: skip needs a count of zero or more, got \(count)") }
        let seen = RJAtomic<Int>(0)
        return derive { value, downstream in
            // Values of one node are delivered one at a time, so the count is exact.
            if seen.add(1, ordering: .relaxed).newValue > count { downstream.receive(value) }
        }
    }

    /// A node that passes only the first `count` values (the current one, if any, counts);
    /// `take(0)` passes nothing. A negative count is a programming error.
    ///
    /// ```swift
    /// let b = a.take(2)   // 1, 2, 3 -> 1, 2
    /// ```
    @inlinable
    public func take(_ count: Int) -> Node<Value> {
        if !(count >= 0) { fatalError("RJNodes: take needs a count of zero or more, got \(count)") }
        let seen = RJAtomic<Int>(0)
        return derive { value, downstream in
            if seen.add(1, ordering: .relaxed).newValue <= count { downstream.receive(value) }
        }
    }
}
