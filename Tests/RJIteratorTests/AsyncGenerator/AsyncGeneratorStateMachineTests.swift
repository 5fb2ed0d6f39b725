import XCTest

@testable import RJIterator

// The async generator's state machine alone (AsyncGenerator/AsyncGeneratorStateMachine.swift):
// every event in every state, as a table. Each row builds a state through events from `fresh`,
// applies one event, and compares what the machine decided and the state it left with the
// expected text. The rules the table follows are the file's header; docs/async-generators.md
// has them for users.

private typealias Machine = AsyncGeneratorStateMachine

/// The requests of one row, by name (held here: the machine holds the one it serves unretained,
/// as its requester would).
private final class Names {
    var byName: [String: AsyncRequest] = [:]
    /// A `next()` request, or (`next: false`) a `return(())`, as the generator would make them.
    func request(_ name: String, next: Bool = true) -> AsyncRequest {
        let operation: GeneratorOperation<Void, Void> = next ? .next(()) : .returning(())
        let r = AsyncRequest(operation, isNext: next)
        byName[name] = r
        return r
    }
    func name(_ r: AsyncRequest?) -> String {
        guard let r else { return "-" }
        return byName.first { $0.value === r }?.key ?? "?"
    }
}

private func describe(_ m: Machine, _ n: Names) -> String {
    var text: String
    switch m.body {
    case .fresh: text = "fresh"
    case .suspended: text = "suspended"
    case .running(let turn):
        var who: String
        switch turn.serving {
        case .caller: who = "caller"
        case .request: who = "request \(n.name(turn.request))"
        case .ahead: who = "ahead"
        case .closing: who = "closing"
        }
        if turn.released { who += ", released" }
        text = "running(\(who))"
    case .ended(let ending): text = "ended(\(ending))"
    }
    switch m.queue {
    case .empty: break
    case .waiters(let waiters):
        text += " waiters[" + waiters.all.map { w -> String in
            if case .request(let r) = w { return n.name(r) }
            return "cancellation"
        }.joined(separator: ",") + "]"
    case .ahead(let values):
        text += " ahead[" + values.all.map { "\($0)" }.joined(separator: ",") + "]"
    }
    if m.awaits.cancelled { text += " cancelled" }
    return text
}

private func describe(_ n: Names, _ next: Machine.Next) -> String {
    switch next {
    case .stop: return "stop"
    case .produce: return "produce"
    case .serve(let r): return "serve \(n.name(r))"
    case .cancel: return "cancel"
    }
}

private func describeCancellation(_ c: AwaitState.Cancellation?) -> String {
    guard let c else { return "" }
    return c.resume ? " (resume)" : (c.stop != nil ? " (stop)" : "")
}

/// The states the table starts from, each built from `fresh` by real events.
private let states: [(String, Int, @Sendable (inout Machine, Names) -> Void)] = [
    ("fresh", 0, { _, _ in }),
    ("suspended", 0, { m, _ in _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded() }),
    ("suspended ahead[1,2]", 2, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded()          // producing ahead
        _ = m.turnYielded { 1 }; _ = m.turnYielded { 2 }                      // full: suspended
    }),
    ("running(caller)", 0, { m, _ in _ = m.callerArrives(isNext: true) }),
    ("running(request a)", 0, { m, n in _ = m.requestArrives(n.request("a")) }),
    ("running(ahead)", 2, { m, _ in _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded() }),
    ("running(closing) cancelled", 0, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded(); _ = m.cancellationArrives()
    }),
    ("running(request a) waiters[b]", 0, { m, n in
        _ = m.requestArrives(n.request("a")); _ = m.requestArrives(n.request("b"))
    }),
    ("running(ahead) ahead[1]", 2, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded(); _ = m.turnYielded { 1 }
    }),
    ("running(request a, released) cancelled", 0, { m, n in _ = m.requestArrives(n.request("a")); _ = m.released() }),
    ("ended(normally)", 0, { m, n in _ = m.requestArrives(n.request("a")); _ = m.turnEnded() }),
    ("ended(normally) ahead[1]", 2, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded(); _ = m.turnYielded { 1 }; _ = m.turnEnded()
    }),
    ("ended(byCancellation) cancelled", 0, { m, n in
        let a = n.request("a"); _ = m.requestArrives(a); _ = m.cancel(a); _ = m.turnEnded()
    }),
]

/// The events, each applied to every state: what it decided, as text.
private let events: [(String, @Sendable (inout Machine, Names) -> String)] = [
    ("callerArrives(next)", { m, n in
        switch m.callerArrives(isNext: true) {
        case .serve: return "serve"
        case .take(let v, let produce): return "take \(v)\(produce ? ", produce" : "")"
        case .outcome(let e): return "outcome \(e)"
        case .wait: return "wait"
        }
    }),
    ("callerArrives(return)", { m, n in
        switch m.callerArrives(isNext: false) {
        case .serve: return "serve"
        case .take(let v, let produce): return "take \(v)\(produce ? ", produce" : "")"
        case .outcome(let e): return "outcome \(e)"
        case .wait: return "wait"
        }
    }),
    ("requestArrives(next c)", { m, n in describe(n, arrival: m.requestArrives(n.request("c"))) }),
    ("requestArrives(return c)", { m, n in describe(n, arrival: m.requestArrives(n.request("c", next: false))) }),
    ("cancellationArrives", { m, n in describe(m.cancellationArrives()) }),
    ("turnYielded(9)", { m, n in
        switch m.turnYielded({ 9 }) {
        case .answer(let r, let next): return "answer \(n.name(r)), \(describe(n, next))"
        case .noAnswer(let next): return "no answer, \(describe(n, next))"
        case .refuse: return "refuse"
        case .closeForRelease: return "close for release"
        }
    }),
    ("turnEnded", { m, n in
        let end = m.turnEnded()
        var served = "nobody"
        if case .caller = end.served { served = "caller" }
        if case .request(let r) = end.served { served = n.name(r) }
        return "answer \(served), left [\(end.left.map(n.name).joined(separator: ","))], \(end.ending)"
    }),
    ("cancel(a)", { m, n in n.byName["a"].map { describe(m.cancel($0)) } ?? "no a" }),
    ("cancel(b)", { m, n in n.byName["b"].map { describe(m.cancel($0)) } ?? "no b" }),
    ("cancel(d), not come yet", { m, n in
        let d = n.request("d")
        return describe(m.cancel(d)) + (d.cancelled ? ", marked" : "")
    }),
    ("turnAwaits, the caller now waits as e", { m, n in
        switch m.turnAwaits(1, callerNowWaitingAs: n.request("e")) {
        case .wait: return "wait"
        case .resumeNow: return "resume now"
        }
    }),
    ("hint", { m, n in "\(m.hintToLeave)" }),
    ("released", { m, n in
        switch m.released() {
        case .none: return "none"
        case .closeNow: return "close now"
        case .closeAtNextYield(let c): return "close at next yield\(describeCancellation(c))"
        }
    }),
]

private func describe(_ n: Names, arrival: Machine.RequestStart) -> String {
    switch arrival {
    case .serve: return "serve"
    case .take(let v, let produce): return "take \(v)\(produce ? ", produce" : "")"
    case .outcome(let e): return "outcome \(e)"
    case .queued: return "queued"
    case .cancelled(let start): return "cancelled: \(describe(start))"
    }
}

private func describe(_ start: Machine.CancellationStart) -> String {
    switch start {
    case .closeHere: return "close here"
    case .queued(let stop): return "queued\(stop == nil ? "" : ", turn cancelled\(describeCancellation(stop))")"
    case .ended: return "ended"
    }
}

private func describe(_ action: Machine.CancelAction) -> String {
    switch action {
    case .none: return "none"
    case .cancelledTurn(let c): return "cancelled turn\(describeCancellation(c))"
    case .withdrawn(let stop): return "withdrawn\(stop == nil ? "" : ", turn cancelled\(describeCancellation(stop))")"
    }
}

final class AsyncGeneratorStateMachineTests: XCTestCase {
    /// Every event in every state: `state | event -> decision => state after`.
    func testEveryEventInEveryStateDecidesAsTheTableSays() {
        var rows: [String] = []
        for (stateName, capacity, build) in states {
            for (eventName, apply) in events {
                var machine = Machine(capacity: capacity)
                let names = Names()
                build(&machine, names)
                XCTAssertEqual(describe(machine, names), stateName, "the state is built as named")
                XCTAssertNil(machine.invariantViolation, "\(stateName)")
                let decision = apply(&machine, names)
                if !eventName.hasPrefix("turn") {
                    // (The turn events of a state without a turn are never made; the others keep
                    // the invariants from every state.)
                    XCTAssertNil(machine.invariantViolation, "\(stateName) | \(eventName)")
                }
                rows.append("\(stateName) | \(eventName) -> \(decision) => \(describe(machine, names))")
            }
        }
        if ProcessInfo.processInfo.environment["RJ_PRINT_TABLE"] != nil { print(rows.joined(separator: "\n")) }
        XCTAssertEqual(rows.count, expectedTable.count)
        for (row, expected) in zip(rows, expectedTable) { XCTAssertEqual(row, expected) }
    }
}

// Reviewed row by row against the rules (the file's header); a change here is a change of
// semantics, to be said in docs/async-generators.md.
private let expectedTable: [String] = [
    "fresh | callerArrives(next) -> serve => running(caller)",
    "fresh | callerArrives(return) -> serve => running(caller)",
    "fresh | requestArrives(next c) -> serve => running(request c)",
    "fresh | requestArrives(return c) -> serve => running(request c)",
    "fresh | cancellationArrives -> close here => running(closing) cancelled",
    "fresh | turnYielded(9) -> no answer, stop => fresh",
    "fresh | turnEnded -> answer nobody, left [], normally => ended(normally)",
    "fresh | cancel(a) -> no a => fresh",
    "fresh | cancel(b) -> no b => fresh",
    "fresh | cancel(d), not come yet -> none, marked => fresh",
    "fresh | turnAwaits, the caller now waits as e -> wait => fresh",
    "fresh | hint -> 0 => fresh",
    "fresh | released -> none => ended(normally)",
    "suspended | callerArrives(next) -> serve => running(caller)",
    "suspended | callerArrives(return) -> serve => running(caller)",
    "suspended | requestArrives(next c) -> serve => running(request c)",
    "suspended | requestArrives(return c) -> serve => running(request c)",
    "suspended | cancellationArrives -> close here => running(closing) cancelled",
    "suspended | turnYielded(9) -> no answer, stop => suspended",
    "suspended | turnEnded -> answer nobody, left [], normally => ended(normally)",
    "suspended | cancel(a) -> no a => suspended",
    "suspended | cancel(b) -> no b => suspended",
    "suspended | cancel(d), not come yet -> none, marked => suspended",
    "suspended | turnAwaits, the caller now waits as e -> wait => suspended",
    "suspended | hint -> 1 => suspended",
    "suspended | released -> close now => running(closing, released) cancelled",
    "suspended ahead[1,2] | callerArrives(next) -> take 1, produce => running(ahead) ahead[2]",
    "suspended ahead[1,2] | callerArrives(return) -> serve => running(caller)",
    "suspended ahead[1,2] | requestArrives(next c) -> take 1, produce => running(ahead) ahead[2]",
    "suspended ahead[1,2] | requestArrives(return c) -> serve => running(request c)",
    "suspended ahead[1,2] | cancellationArrives -> close here => running(closing) cancelled",
    "suspended ahead[1,2] | turnYielded(9) -> no answer, stop => suspended ahead[1,2]",
    "suspended ahead[1,2] | turnEnded -> answer nobody, left [], normally => ended(normally) ahead[1,2]",
    "suspended ahead[1,2] | cancel(a) -> no a => suspended ahead[1,2]",
    "suspended ahead[1,2] | cancel(b) -> no b => suspended ahead[1,2]",
    "suspended ahead[1,2] | cancel(d), not come yet -> none, marked => suspended ahead[1,2]",
    "suspended ahead[1,2] | turnAwaits, the caller now waits as e -> wait => suspended ahead[1,2]",
    "suspended ahead[1,2] | hint -> 0 => suspended ahead[1,2]",
    "suspended ahead[1,2] | released -> close now => running(closing, released) cancelled",
    "running(caller) | callerArrives(next) -> wait => running(caller)",
    "running(caller) | callerArrives(return) -> wait => running(caller)",
    "running(caller) | requestArrives(next c) -> queued => running(caller) waiters[c]",
    "running(caller) | requestArrives(return c) -> queued => running(caller) waiters[c]",
    "running(caller) | cancellationArrives -> queued => running(caller) waiters[cancellation]",
    "running(caller) | turnYielded(9) -> no answer, stop => suspended",
    "running(caller) | turnEnded -> answer caller, left [], normally => ended(normally)",
    "running(caller) | cancel(a) -> no a => running(caller)",
    "running(caller) | cancel(b) -> no b => running(caller)",
    "running(caller) | cancel(d), not come yet -> none, marked => running(caller)",
    "running(caller) | turnAwaits, the caller now waits as e -> wait => running(request e)",
    "running(caller) | hint -> 2 => running(caller)",
    "running(caller) | released -> close at next yield => running(caller, released) cancelled",
    "running(request a) | callerArrives(next) -> wait => running(request a)",
    "running(request a) | callerArrives(return) -> wait => running(request a)",
    "running(request a) | requestArrives(next c) -> queued => running(request a) waiters[c]",
    "running(request a) | requestArrives(return c) -> queued => running(request a) waiters[c]",
    "running(request a) | cancellationArrives -> queued => running(request a) waiters[cancellation]",
    "running(request a) | turnYielded(9) -> answer a, stop => suspended",
    "running(request a) | turnEnded -> answer a, left [], normally => ended(normally)",
    "running(request a) | cancel(a) -> cancelled turn => running(request a) cancelled",
    "running(request a) | cancel(b) -> no b => running(request a)",
    "running(request a) | cancel(d), not come yet -> none, marked => running(request a)",
    "running(request a) | turnAwaits, the caller now waits as e -> wait => running(request a)",
    "running(request a) | hint -> 0 => running(request a)",
    "running(request a) | released -> close at next yield => running(request a, released) cancelled",
    "running(ahead) | callerArrives(next) -> wait => running(ahead)",
    "running(ahead) | callerArrives(return) -> wait => running(ahead)",
    "running(ahead) | requestArrives(next c) -> queued => running(ahead) waiters[c]",
    "running(ahead) | requestArrives(return c) -> queued => running(ahead) waiters[c]",
    "running(ahead) | cancellationArrives -> queued, turn cancelled => running(ahead) waiters[cancellation] cancelled",
    "running(ahead) | turnYielded(9) -> no answer, produce => running(ahead) ahead[9]",
    "running(ahead) | turnEnded -> answer nobody, left [], normally => ended(normally)",
    "running(ahead) | cancel(a) -> no a => running(ahead)",
    "running(ahead) | cancel(b) -> no b => running(ahead)",
    "running(ahead) | cancel(d), not come yet -> none, marked => running(ahead)",
    "running(ahead) | turnAwaits, the caller now waits as e -> wait => running(ahead)",
    "running(ahead) | hint -> 0 => running(ahead)",
    "running(ahead) | released -> close at next yield => running(ahead, released) cancelled",
    "running(closing) cancelled | callerArrives(next) -> wait => running(closing) cancelled",
    "running(closing) cancelled | callerArrives(return) -> wait => running(closing) cancelled",
    "running(closing) cancelled | requestArrives(next c) -> queued => running(closing) waiters[c] cancelled",
    "running(closing) cancelled | requestArrives(return c) -> queued => running(closing) waiters[c] cancelled",
    "running(closing) cancelled | cancellationArrives -> queued => running(closing) waiters[cancellation] cancelled",
    "running(closing) cancelled | turnYielded(9) -> refuse => running(closing) cancelled",
    "running(closing) cancelled | turnEnded -> answer nobody, left [], byCancellation => ended(byCancellation) cancelled",
    "running(closing) cancelled | cancel(a) -> no a => running(closing) cancelled",
    "running(closing) cancelled | cancel(b) -> no b => running(closing) cancelled",
    "running(closing) cancelled | cancel(d), not come yet -> none, marked => running(closing) cancelled",
    "running(closing) cancelled | turnAwaits, the caller now waits as e -> wait => running(closing) cancelled",
    "running(closing) cancelled | hint -> 0 => running(closing) cancelled",
    "running(closing) cancelled | released -> close at next yield => running(closing, released) cancelled",
    "running(request a) waiters[b] | callerArrives(next) -> wait => running(request a) waiters[b]",
    "running(request a) waiters[b] | callerArrives(return) -> wait => running(request a) waiters[b]",
    "running(request a) waiters[b] | requestArrives(next c) -> queued => running(request a) waiters[b,c]",
    "running(request a) waiters[b] | requestArrives(return c) -> queued => running(request a) waiters[b,c]",
    "running(request a) waiters[b] | cancellationArrives -> queued => running(request a) waiters[b,cancellation]",
    "running(request a) waiters[b] | turnYielded(9) -> answer a, serve b => running(request b)",
    "running(request a) waiters[b] | turnEnded -> answer a, left [b], normally => ended(normally)",
    "running(request a) waiters[b] | cancel(a) -> cancelled turn => running(request a) waiters[b] cancelled",
    "running(request a) waiters[b] | cancel(b) -> withdrawn => running(request a) waiters[cancellation]",
    "running(request a) waiters[b] | cancel(d), not come yet -> none, marked => running(request a) waiters[b]",
    "running(request a) waiters[b] | turnAwaits, the caller now waits as e -> wait => running(request a) waiters[b]",
    "running(request a) waiters[b] | hint -> 0 => running(request a) waiters[b]",
    "running(request a) waiters[b] | released -> close at next yield => running(request a, released) waiters[b] cancelled",
    "running(ahead) ahead[1] | callerArrives(next) -> take 1 => running(ahead)",
    "running(ahead) ahead[1] | callerArrives(return) -> wait => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | requestArrives(next c) -> take 1 => running(ahead)",
    "running(ahead) ahead[1] | requestArrives(return c) -> queued => running(ahead) waiters[c]",
    "running(ahead) ahead[1] | cancellationArrives -> queued, turn cancelled => running(ahead) waiters[cancellation] cancelled",
    "running(ahead) ahead[1] | turnYielded(9) -> no answer, stop => suspended ahead[1,9]",
    "running(ahead) ahead[1] | turnEnded -> answer nobody, left [], normally => ended(normally) ahead[1]",
    "running(ahead) ahead[1] | cancel(a) -> no a => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | cancel(b) -> no b => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | cancel(d), not come yet -> none, marked => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | turnAwaits, the caller now waits as e -> wait => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | hint -> 0 => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | released -> close at next yield => running(ahead, released) ahead[1] cancelled",
    "running(request a, released) cancelled | callerArrives(next) -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | callerArrives(return) -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | requestArrives(next c) -> queued => running(request a, released) waiters[c] cancelled",
    "running(request a, released) cancelled | requestArrives(return c) -> queued => running(request a, released) waiters[c] cancelled",
    "running(request a, released) cancelled | cancellationArrives -> queued => running(request a, released) waiters[cancellation] cancelled",
    "running(request a, released) cancelled | turnYielded(9) -> close for release => running(request a, released) cancelled",
    "running(request a, released) cancelled | turnEnded -> answer a, left [], normally => ended(normally) cancelled",
    "running(request a, released) cancelled | cancel(a) -> cancelled turn => running(request a, released) cancelled",
    "running(request a, released) cancelled | cancel(b) -> no b => running(request a, released) cancelled",
    "running(request a, released) cancelled | cancel(d), not come yet -> none, marked => running(request a, released) cancelled",
    "running(request a, released) cancelled | turnAwaits, the caller now waits as e -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | hint -> 0 => running(request a, released) cancelled",
    "running(request a, released) cancelled | released -> close at next yield => running(request a, released) cancelled",
    "ended(normally) | callerArrives(next) -> outcome normally => ended(normally)",
    "ended(normally) | callerArrives(return) -> outcome normally => ended(normally)",
    "ended(normally) | requestArrives(next c) -> outcome normally => ended(normally)",
    "ended(normally) | requestArrives(return c) -> outcome normally => ended(normally)",
    "ended(normally) | cancellationArrives -> ended => ended(normally)",
    "ended(normally) | turnYielded(9) -> no answer, stop => ended(normally)",
    "ended(normally) | turnEnded -> answer nobody, left [], normally => ended(normally)",
    "ended(normally) | cancel(a) -> none => ended(normally)",
    "ended(normally) | cancel(b) -> no b => ended(normally)",
    "ended(normally) | cancel(d), not come yet -> none, marked => ended(normally)",
    "ended(normally) | turnAwaits, the caller now waits as e -> wait => ended(normally)",
    "ended(normally) | hint -> 0 => ended(normally)",
    "ended(normally) | released -> none => ended(normally)",
    "ended(normally) ahead[1] | callerArrives(next) -> take 1 => ended(normally)",
    "ended(normally) ahead[1] | callerArrives(return) -> outcome normally => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | requestArrives(next c) -> take 1 => ended(normally)",
    "ended(normally) ahead[1] | requestArrives(return c) -> outcome normally => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | cancellationArrives -> ended => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnYielded(9) -> no answer, stop => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnEnded -> answer nobody, left [], normally => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | cancel(a) -> no a => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | cancel(b) -> no b => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | cancel(d), not come yet -> none, marked => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnAwaits, the caller now waits as e -> wait => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | hint -> 0 => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | released -> none => ended(normally) ahead[1]",
    "ended(byCancellation) cancelled | callerArrives(next) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | callerArrives(return) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | requestArrives(next c) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | requestArrives(return c) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | cancellationArrives -> ended => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnYielded(9) -> no answer, stop => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnEnded -> answer nobody, left [], byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | cancel(a) -> none => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | cancel(b) -> no b => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | cancel(d), not come yet -> none, marked => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnAwaits, the caller now waits as e -> wait => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | hint -> 0 => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | released -> none => ended(byCancellation) cancelled",
]
