extension Node {
    /// For a node of nodes: a node that follows the latest inner node only (EasyReact's
    /// flatten): when a new inner node arrives, the previous one is let go, and the new one's
    /// current value (if any) and later values pass through.
    ///
    /// ```swift
    /// let outer = MutableNode<Node<Int>>()
    /// let flat: Node<Int> = outer.flatten()
    /// outer.value = a   // flat follows a
    /// outer.value = b   // now b; a's values no longer pass
    /// ```
    public func flatten<Inner: Sendable>() -> Node<Inner> where Value == Node<Inner> {
        flattenMap { $0 }
    }

    /// Maps each value to a node (or nil: no change) and follows the latest of those nodes
    /// (EasyReact's flattenMap): for transforms that give several values, none, or values later.
    ///
    /// ```swift
    /// let digits = numbers.flattenMap { n -> Node<Int>? in
    ///     let inside = MutableNode<Int>()
    ///     let out = inside.deliverOn(.main)
    ///     var v = n
    ///     while v != 0 { inside.value = v % 10; v /= 10 }
    ///     return out
    /// }
    /// ```
    public func flattenMap<Inner: Sendable>(_ transform: @escaping @Sendable (Value) -> Node<Inner>?) -> Node<Inner> {
        let current = CurrentLink()
        return derive { value, downstream in
            guard let inner = transform(value) else { return }
            let previous = current.replace(with: nil)
            previous?.cancel()
            _ = current.replace(with: downstream.link(to: inner))
        }
    }
}

/// The link a flattened node has to its current inner node. Guarded by the engine's lock.
final class CurrentLink: @unchecked Sendable {
    @exclusivity(unchecked) private var link: (any Cancelable)?
    func replace(with new: (any Cancelable)?) -> (any Cancelable)? {
        defer { link = new }
        return link
    }
}
