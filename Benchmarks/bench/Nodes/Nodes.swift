import RJNodes

/// EasyReact's benchmark: setting a node's value with listeners, chains, a diamond.
@MainActor
struct NodeRows {
    static let group = "reactive nodes (per value set)"

    let directCalls = Row(NodeRows.group, "floor: 10 closures called directly", note: "what a listener call cannot beat") { n in
        let sink = Sink()
        let closures: [@Sendable (Int) -> Void] = (0..<10).map { k in { sink.sum &+= $0 &+ k } }
        for i in 0..<n {
            for c in closures { c(i) }
        }
        blackHole(sink.sum)
    }
    let nodeListeners = Row(NodeRows.group, "node with 10 listeners") { n in
        let sink = Sink()
        let node = MutableNode(0)
        var listening: [any Cancelable] = []
        for k in 0..<10 { listening.append(node.listenedBy(nodeOwner).withBlock { sink.sum &+= $0 &+ k }) }
        for i in 0..<n { node.value = i }
        for l in listening { l.cancel() }
        blackHole(sink.sum)
    }
    let nodeChain = Row(NodeRows.group, "node -> map -> filter with 10 listeners") { n in
        let sink = Sink()
        let node = MutableNode(0)
        let last = node.map { $0 &* 2 }.filter { $0 % 4 == 0 }
        var listening: [any Cancelable] = []
        for k in 0..<10 { listening.append(last.listenedBy(nodeOwner).withBlock { sink.sum &+= $0 &+ k }) }
        for i in 0..<n { node.value = i }
        for l in listening { l.cancel() }
        blackHole(sink.sum)
    }
    let nodeDiamond = Row(NodeRows.group, "diamond of 4 nodes (a -> b, c -> combine), 1 listener",
                          note: "glitch-free: the combine runs once per set") { n in
        let sink = Sink()
        let a = MutableNode(0)
        let d = combine(a.map { $0 &+ 1 }, a.map { $0 &* 2 })
        let listening = d.listenedBy(nodeOwner).withBlock { sink.sum &+= $0.0 &+ $0.1 }
        for i in 0..<n { a.value = i }
        listening.cancel()
        blackHole(sink.sum)
    }
    let nodeCombine = Row(NodeRows.group, "combine of 2 nodes, 1 listener", note: "one input set per step") { n in
        let sink = Sink()
        let a = MutableNode(0)
        let b = MutableNode(0)
        let listening = combine(a, b).listenedBy(nodeOwner).withBlock { sink.sum &+= $0.0 &+ $0.1 }
        for i in 0..<n { a.value = i }
        listening.cancel()
        blackHole(sink.sum)
    }

    var all: [Row] { [directCalls, nodeListeners, nodeChain, nodeDiamond, nodeCombine] }
}

/// The owner every listener of these rows is attached to.
final class BenchOwner: Sendable {}
let nodeOwner = BenchOwner()

// MARK: Targets

extension NodeRows {
    func holdTargets(_ bench: Bench) {
        bench.ratio("node, 10 listeners / direct calls", nodeListeners, over: directCalls, target: nil,
                    "(information: must not grow; was 2.5x-4x)")
    }
}
