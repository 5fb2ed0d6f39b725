/// A node of any value type: what graph traversal sees.
///
/// ```swift
/// for upstream in node.upstreamNodes { print(upstream.name ?? "unnamed") }
/// ```
public protocol AnyNode: AnyObject, Sendable {
    /// A name for debugging and for ``Node/graph()``; nil unless set.
    var name: String? { get set }
    /// The nodes this node takes values from, in the order they were linked.
    var upstreamNodes: [any AnyNode] { get }
    /// The nodes this node feeds, in the order they were linked (listeners are not nodes).
    var downstreamNodes: [any AnyNode] { get }
    /// Removes every link from `upstream` into this node (used by `removeDownstreamNode`).
    func removeLinks(from upstream: AnyObject)
}

extension Node: AnyNode {
    public var name: String? {
        get { engine.lock.withLock { storedName } }
        set { engine.lock.withLock { storedName = newValue } }
    }

    public var upstreamNodes: [any AnyNode] {
        engine.lock.withLock { upstreamLinks.compactMap { $0.holder as? any AnyNode } }
    }

    public var downstreamNodes: [any AnyNode] {
        engine.lock.withLock {
            var seen: Set<ObjectIdentifier> = []
            return edges.compactMap { edge -> (any AnyNode)? in
                guard let node = edge.target?.object as? any AnyNode, seen.insert(ObjectIdentifier(node)).inserted else {
                    return nil
                }
                return node
            }
        }
    }

    public func removeLinks(from upstream: AnyObject) {
        removeUpstreamLinks { $0 === upstream }
    }

    /// A Graphviz `dot` description of every node and edge reachable from this node, upstream
    /// and downstream, with the nodes' names where set (render it with `dot -Tpng`).
    ///
    /// ```swift
    /// a.name = "a"
    /// print(a.graph())   // digraph { ... }
    /// ```
    public func graph() -> String {
        var ids: [ObjectIdentifier: Int] = [:]
        var order: [any AnyNode] = []
        var work: [any AnyNode] = [self]
        while let node = work.popLast() {
            let id = ObjectIdentifier(node)
            if ids[id] != nil { continue }
            ids[id] = order.count
            order.append(node)
            work.append(contentsOf: node.upstreamNodes)
            work.append(contentsOf: node.downstreamNodes)
        }
        func label(_ node: any AnyNode) -> String {
            let text = node.name ?? "\(type(of: node))"
            var escaped = ""
            for character in text {
                if character == "\\" || character == "\"" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped
        }
        var lines = ["digraph G {", "  node [shape=box];"]
        for (index, node) in order.enumerated() {
            lines.append("  n\(index) [label=\"\(label(node))\"];")
        }
        for (index, node) in order.enumerated() {
            for down in node.downstreamNodes {
                if let target = ids[ObjectIdentifier(down)] { lines.append("  n\(index) -> n\(target);") }
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
