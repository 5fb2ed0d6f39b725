import RJLocks

extension Node {
    /// A node holding a running fold: the first value arriving is combined with `start`, each
    /// later one with the previous result, and every result is passed on.
    ///
    /// ```swift
    /// a.scan(start: [Int]()) { all, n in all + [n] }   // [1], [1, 2], [1, 2, 3] ...
    /// ```
    @inlinable
    public func scan<Result: Sendable>(start: Result, reduce: @escaping @Sendable (Result, Value) -> Result) -> Node<Result> {
        let accumulator = RJLockedValue<Result>(start)
        return derive { value, downstream in
            let next = accumulator.withLockedValue { state -> Result in
                state = reduce(state, value)
                return state
            }
            downstream.receive(next)
        }
    }
}
