import RJLocks

extension Node {
    /// Makes this node take every value of `upstream` (EasyReact's `linkTo:`); a node may have
    /// several upstream nodes, and links may form cycles: a value goes once around a cycle and
    /// stops. This node keeps `upstream` alive until the link is cancelled (a cycle keeps all of
    /// its nodes alive until one of its links is cancelled, as in EasyReact).
    ///
    /// - Returns: a ``Cancelable`` that removes this link.
    ///
    /// ```swift
    /// let b = MutableNode<Int>()
    /// let link = b.link(to: a)   // b follows a
    /// link.cancel()
    /// ```
    @discardableResult
    public func link(to upstream: Node<Value>) -> any Cancelable {
        link(from: upstream) { $0 }
    }

    /// A link through `transform` (what `syncWith(_:transform:revert:)` is made of).
    @usableFromInline
    func link<Up: Sendable>(from upstream: Node<Up>, _ transform: @escaping @Sendable (Up) -> Value) -> any Cancelable {
        let link = feed(from: upstream) { value, node in
            let mapped = transform(value)
            // A node fed by more than one upstream waits for all of them in a wave.
            if node.upstreamLinks.count > 1 {
                node.linkedValue = mapped
                node.inputChanged { if let value = node.linkedValue.take() { node.receive(value) } }
            } else {
                node.receive(mapped)
            }
        }
        return LinkCancelable(node: self, link: link)
    }

    /// Removes every link from `upstream` into this node.
    ///
    /// ```swift
    /// b.removeUpstreamNode(a)
    /// ```
    public func removeUpstreamNode(_ upstream: some AnyNode) {
        removeUpstreamLinks { $0 === upstream }
    }

    /// Removes every link into this node.
    ///
    /// ```swift
    /// b.removeUpstreamNodes()
    /// ```
    public func removeUpstreamNodes() {
        removeUpstreamLinks { _ in true }
    }

    /// Removes every link from this node into `downstream`.
    ///
    /// ```swift
    /// a.removeDownstreamNode(b)
    /// ```
    public func removeDownstreamNode(_ downstream: some AnyNode) {
        downstream.removeLinks(from: self)
    }

    /// Removes every link from this node into other nodes (listeners stay).
    ///
    /// ```swift
    /// a.removeDownstreamNodes()
    /// ```
    public func removeDownstreamNodes() {
        for node in downstreamNodes { node.removeLinks(from: self) }
    }

    /// A node that follows this one (EasyReact's `fork`).
    ///
    /// ```swift
    /// let copy = a.fork()
    /// ```
    public func fork() -> Node<Value> {
        derive { value, downstream in downstream.receive(value) }
    }

    @usableFromInline
    func removeUpstreamLinks(where matches: (AnyObject) -> Bool) {
        let removed: [UpstreamLink] = engine.lock.withLock {
            let gone = upstreamLinks.filter { matches($0.holder) }
            upstreamLinks.removeAll { matches($0.holder) }
            return gone
        }
        for link in removed { link.detach() }
    }
}

/// Cancels one link: removes it from the node it feeds, and lets go of it, so that a cancelled
/// token kept by its user holds neither node (the link holds its upstream strongly).
final class LinkCancelable: Cancelable, Sendable {
    private let removeLink: @Sendable (UpstreamLink) -> Void
    /// The link until it is cancelled.
    private let link: RJLockedValue<UpstreamLink?>

    init<Value: Sendable>(node: Node<Value>, link: UpstreamLink) {
        self.link = RJLockedValue(link)
        self.removeLink = { [weak node] link in node?.dropLink(link) }
    }

    func cancel() {
        guard let link = link.withLockedValue({ $0.take() }) else { return }
        removeLink(link)
    }
}

extension Node {
    /// Removes `link` from this node and from its upstream.
    @usableFromInline
    func dropLink(_ link: UpstreamLink) {
        let found: Bool = engine.lock.withLock {
            guard let index = upstreamLinks.firstIndex(where: { $0 === link }) else { return false }
            upstreamLinks.remove(at: index)
            return true
        }
        if found { link.detach() }
    }
}

extension Node {
    /// Keeps this node and `other` equal: a value set on either reaches the other (a cycle of
    /// two links; a value goes once around it).
    ///
    /// - Returns: a ``Cancelable`` that ends the synchronisation (both links).
    ///
    /// ```swift
    /// let sync = a.syncWith(b)
    /// a.value = 1   // b.value == 1
    /// sync.cancel()
    /// ```
    @discardableResult
    public func syncWith(_ other: Node<Value>) -> any Cancelable {
        syncWith(other, transform: { $0 }, revert: { $0 })
    }

    /// Keeps this node and `other` in step through two functions: this node takes
    /// `transform(b)` for every value `b` of `other`, and `other` takes `revert(a)` for every
    /// value `a` of this node.
    ///
    /// ```swift
    /// let sync = a.syncWith(b, transform: { $0 / 2 }, revert: { $0 * 2 })
    /// a.value = 1   // b.value == 2
    /// ```
    @discardableResult
    public func syncWith<Other: Sendable>(
        _ other: Node<Other>, transform: @escaping @Sendable (Other) -> Value, revert: @escaping @Sendable (Value) -> Other
    ) -> any Cancelable {
        let forward = other.link(from: self, revert)
        let backward = link(from: other, transform)
        return CancelableGroup([forward, backward])
    }
}

/// Several cancelables as one.
final class CancelableGroup: Cancelable, @unchecked Sendable {
    private let parts: [any Cancelable]
    init(_ parts: [any Cancelable]) { self.parts = parts }
    func cancel() { for part in parts { part.cancel() } }
}
