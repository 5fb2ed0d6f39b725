extension Node {
    /// A node that receives only the values for which `isIncluded` is true; it keeps its last
    /// passed value (and stays empty until one passes).
    ///
    /// ```swift
    /// let b = a.filter { $0 > 5 }
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Value) -> Bool) -> Node<Value> {
        derive { value, downstream in
            if isIncluded(value) { downstream.receive(value) }
        }
    }
}

extension Node where Value: Equatable {
    /// A node that receives every value except those equal to `excluded`.
    ///
    /// ```swift
    /// let b = a.ignore(1)
    /// ```
    @inlinable
    public func ignore(_ excluded: Value) -> Node<Value> {
        filter { $0 != excluded }
    }

    /// A node that receives only the values equal to `selected`.
    ///
    /// ```swift
    /// let c = a.select(1)
    /// ```
    @inlinable
    public func select(_ selected: Value) -> Node<Value> {
        filter { $0 == selected }
    }
}
