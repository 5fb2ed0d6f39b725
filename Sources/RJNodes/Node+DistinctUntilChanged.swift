extension Node where Value: Equatable {
    /// A node that skips a value equal to the one it holds (it compares against its own
    /// current value, so the first value always passes).
    ///
    /// ```swift
    /// a.distinctUntilChanged()   // 1, 1, 2, 2, 1 -> 1, 2, 1
    /// ```
    @inlinable
    public func distinctUntilChanged() -> Node<Value> {
        derive { value, downstream in
            if downstream.value != value { downstream.receive(value) }
        }
    }
}
