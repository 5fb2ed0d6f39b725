import XCTest

@testable import RJIterator

// The async generator's state machine alone (AsyncGenerator/AsyncGeneratorStateMachine*.swift):
// every event in every state, as a table. Each row builds a state through events from `fresh`,
// applies one event, and compares what the machine decided and the state it left with the
// expected text. The rules the table follows are the machine's header; docs/async-generators.md
// has them for users.

private typealias Machine = AsyncGeneratorStateMachine

/// The requests of one row, by name (the machine names them by id).
private final class Names {
    var byID: [UInt64: String] = [:]
    var ids: [String: UInt64] = [:]
    func note(_ name: String, _ id: UInt64) {
        byID[id] = name
        ids[name] = id
    }
    func name(_ id: UInt64) -> String { byID[id] ?? "#\(id)" }
    /// `name` arrives as a `next()` (or, `next: false`, a `return(())`), as the generator would send it.
    func arrive(_ name: String, next: Bool = true, _ m: inout Machine) -> Machine.RequestStart {
        let operation: GeneratorOperation<Void, Void> = next ? .next(()) : .returning(())
        let start = m.requestArrives(operation, isNext: next)
        switch start {
        case .serve(let id), .queued(let id): note(name, id)
        case .answered: break
        }
        return start
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
        case .request(let r): who = "request \(n.name(r.id))"
        case .ahead: who = "ahead"
        case .dropping: who = "dropping"
        case .closing(let closers): who = "closing[\(closers.map { n.name($0.id) }.joined(separator: ","))]"
        }
        if turn.released { who += ", released" }
        if turn.refused { who += ", refused" }
        text = "running(\(who))"
    case .ended(let ending): text = "ended(\(ending))"
    }
    switch m.queue {
    case .empty: break
    case .waiting(let waiting): text += " waiting[" + waiting.all.map { n.name($0.id) }.joined(separator: ",") + "]"
    case .ahead(let values): text += " ahead[" + values.all.map { "\($0)" }.joined(separator: ",") + "]"
    }
    if !m.kept.isEmpty { text += " kept[" + m.kept.map { "\(n.name($0.id)): \(describe($0.answer))" }.joined(separator: ",") + "]" }
    if m.awaits.cancelled { text += " cancelled" }
    return text
}

private func describe(_ answer: AsyncAnswer) -> String {
    switch answer {
    case .atHand: return "at hand"
    case .yielded(let v): return "yielded \(v)"
    case .result(let r): return "result \(r)"
    case .outcome(let e): return "outcome \(e)"
    case .cancellation: return "cancellation"
    }
}

/// An answer handed to a waiter, by the waiter (a task is named by its continuation's number).
private func describe(_ d: AsyncWaiterAnswer?) -> String {
    guard let d else { return "no waiter to resume" }
    var who = "?"
    if case .task(let raw) = d.waiter { who = "task \(Int(bitPattern: raw))" }
    return "\(who) \(describe(d.answer))"
}

private func describe(_ next: Machine.Next) -> String {
    switch next {
    case .stop: return "stop"
    case .produce: return "produce"
    case .serve(let operation): return "serve \(operation)"
    }
}

private func describe(_ c: AwaitState.Cancellation?) -> String {
    guard let c else { return "" }
    return c.resume ? " (resume)" : (c.stop != nil ? " (stop)" : "")
}

private func describe(_ start: Machine.RequestStart, _ n: Names) -> String {
    switch start {
    case .serve(let id): return "serve \(n.name(id))"
    case .answered(let answer, let produce): return "answered \(describe(answer))\(produce ? ", produce" : "")"
    case .queued(let id): return "queued \(n.name(id))"
    }
}

/// The waiter of request `name` in the tests: a task whose continuation is the number `tag`.
private func task(_ tag: Int) -> AsyncWaiter { .task(UnsafeRawPointer(bitPattern: tag)!) }

/// The waiter of request `id` where the machine holds it (`.none` for a kept answer), nil when it has none.
private func waiterOf(_ id: UInt64, in m: Machine) -> AsyncWaiter? {
    if m.kept.contains(where: { $0.id == id }) { return AsyncWaiter.none }
    if case .running(let turn) = m.body {
        if case .request(let r) = turn.serving, r.id == id { return r.waiter }
        if case .closing(let closers) = turn.serving, let r = closers.first(where: { $0.id == id }) { return r.waiter }
    }
    if case .waiting(let waiting) = m.queue, let r = waiting.all.first(where: { $0.id == id }) { return r.waiter }
    return nil
}

/// The states the table starts from, each built from `fresh` by real events: (name, capacity,
/// keeps a withdrawn read's step, events).
private let states: [(String, Int, Bool, @Sendable (inout Machine, Names) -> Void)] = [
    ("fresh", 0, true, { _, _ in }),
    ("suspended", 0, true, { m, _ in _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded() }),
    ("suspended ahead[1,2]", 2, true, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded()          // producing ahead
        _ = m.turnYielded { 1 }; _ = m.turnYielded { 2 }                      // full: suspended
    }),
    ("suspended ahead[7]", 0, true, { m, n in
        _ = n.arrive("a", &m); _ = m.turnAwaits(1)                            // a's turn awaits
        _ = m.waiterArrives(n.ids["a"]!, task(1)); _ = m.readerCancelled(n.ids["a"]!, lastReader: false)
        _ = m.completeAwait(RJResult(), for: 1); _ = m.turnYielded { 7 }      // its step: kept in the slot
    }),
    ("running(caller)", 0, true, { m, _ in _ = m.callerArrives(isNext: true) }),
    ("running(request a)", 0, true, { m, n in _ = n.arrive("a", &m) }),
    ("running(ahead)", 2, true, { m, _ in _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded() }),
    ("running(ahead) kept[a: cancellation]", 0, true, { m, n in
        _ = n.arrive("a", &m); _ = m.readerCancelled(n.ids["a"]!, lastReader: false)
    }),
    ("running(dropping) kept[a: cancellation]", 0, false, { m, n in
        _ = n.arrive("a", &m); _ = m.readerCancelled(n.ids["a"]!, lastReader: false)
    }),
    ("running(closing[a]) cancelled", 0, true, { m, n in
        _ = n.arrive("a", &m); _ = m.readerCancelled(n.ids["a"]!, lastReader: true)
    }),
    ("running(closing[a], refused) cancelled", 0, true, { m, n in
        _ = n.arrive("a", &m); _ = m.waiterArrives(n.ids["a"]!, task(1)); _ = m.readerCancelled(n.ids["a"]!, lastReader: true)
        _ = m.turnYielded { 8 }                                               // refused once
    }),
    ("running(request a) waiting[b]", 0, true, { m, n in _ = n.arrive("a", &m); _ = n.arrive("b", &m) }),
    ("running(ahead) ahead[1]", 2, true, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded(); _ = m.turnYielded { 1 }
    }),
    ("running(request a, released) cancelled", 0, true, { m, n in _ = n.arrive("a", &m); _ = m.released() }),
    ("ended(normally)", 0, true, { m, n in _ = n.arrive("a", &m); _ = m.waiterArrives(n.ids["a"]!, task(1)); _ = m.turnEnded { 0 } }),
    ("ended(normally) ahead[1]", 2, true, { m, _ in
        _ = m.callerArrives(isNext: true); _ = m.callerTurnYielded(); _ = m.turnYielded { 1 }; _ = m.turnEnded { 0 }
    }),
    ("ended(byCancellation) cancelled", 0, true, { m, n in
        _ = n.arrive("a", &m); _ = m.waiterArrives(n.ids["a"]!, task(1)); _ = m.readerCancelled(n.ids["a"]!, lastReader: true)
        _ = m.turnEnded { 0 }
    }),
]

/// The events, each applied to every state: what it decided, as text. The turn's events are
/// made only with a turn (the storage never makes them otherwise; the machine stops the program).
private let events: [(String, @Sendable (inout Machine, Names) -> String)] = [
    ("callerArrives(next)", { m, _ in
        switch m.callerArrives(isNext: true) {
        case .serve: return "serve"
        case .take(let v, let produce): return "take \(v)\(produce ? ", produce" : "")"
        case .outcome(let e): return "outcome \(e)"
        case .wait: return "wait"
        }
    }),
    ("callerArrives(return)", { m, _ in
        switch m.callerArrives(isNext: false) {
        case .serve: return "serve"
        case .take(let v, let produce): return "take \(v)\(produce ? ", produce" : "")"
        case .outcome(let e): return "outcome \(e)"
        case .wait: return "wait"
        }
    }),
    ("requestArrives(next c)", { m, n in describe(n.arrive("c", &m), n) }),
    ("requestArrives(return c)", { m, n in describe(n.arrive("c", next: false, &m), n) }),
    ("lastReaderLeaves", { m, n in
        switch m.lastReaderLeaves(GeneratorOperation<Void, Void>.next(())) {
        case .closeHere(let id): n.note("z", id); return "close here, z waits"
        case .waits(let id, let c): n.note("z", id); return "z waits\(describe(c))"
        case .answered: return "answered: cancellation"
        }
    }),
    ("turnYielded(9)", { m, n in
        guard m.isRunning else { return "(not made: no turn)" }
        if case .running(let t) = m.body, case .caller = t.serving { return "(not made: a caller's turn)" }
        switch m.turnYielded({ 9 }) {
        case .answer(let d, let next): return "answer \(describe(d)), then \(describe(next))"
        case .refuse: return "refuse"
        case .ignoredCancellation(let ds): return "ignored cancellation: \(ds.map(describe).joined(separator: ", "))"
        case .closeForRelease: return "close for release"
        }
    }),
    ("turnEnded", { m, n in
        guard m.isRunning else { return "(not made: no turn)" }
        let end = m.turnEnded { 0 }
        return "\(end.servedCaller ? "caller answered, " : "")[\(end.answers.map(describe).joined(separator: ", "))]"
    }),
    ("readerCancelled(a)", { m, n in
        guard let a = n.ids["a"] else { return "no a" }
        let action = m.readerCancelled(a, lastReader: false)
        return "\(describe(action.answer))\(describe(action.interrupt))"
    }),
    ("readerCancelled(a), the last reader", { m, n in
        guard let a = n.ids["a"] else { return "no a" }
        let action = m.readerCancelled(a, lastReader: true)
        return "\(describe(action.answer))\(action.interrupt == nil ? "" : ", interrupt\(describe(action.interrupt))")"
    }),
    ("readerCancelled(b)", { m, n in
        guard let b = n.ids["b"] else { return "no b" }
        return describe(m.readerCancelled(b, lastReader: false).answer)
    }),
    ("waiterArrives(a)", { m, n in
        guard let a = n.ids["a"] else { return "no a" }
        guard let waiter = waiterOf(a, in: m) else { return "(answered and handed over already)" }
        if case .task = waiter { return "(waits already)" }
        return m.waiterArrives(a, task(2)).map { "kept: \(describe($0.answer))" } ?? "waits"
    }),
    ("turnAwaits, the caller now waits as e", { m, n in
        let (suspension, id) = m.turnAwaits(1, callerNowWaitingAs: (GeneratorOperation<Void, Void>.next(()), true))
        if id != 0 { n.note("e", id) }
        switch suspension {
        case .wait: return "wait"
        case .resumeNow: return "resume now"
        }
    }),
    ("hint", { m, _ in "\(m.hintToLeave)" }),
    ("released", { m, _ in
        switch m.released() {
        case .none: return "none"
        case .closeNow: return "close now"
        case .closeAtNextYield(let c): return "close at next yield\(describe(c))"
        }
    }),
]

final class AsyncGeneratorStateMachineTests: XCTestCase {
    /// Every event in every state: `state | event -> decision => state after`.
    func testEveryEventInEveryStateDecidesAsTheTableSays() {
        var rows: [String] = []
        for (stateName, capacity, keeps, build) in states {
            for (eventName, apply) in events {
                var machine = Machine(capacity: capacity, keepsWithdrawnSteps: keeps)
                let names = Names()
                build(&machine, names)
                XCTAssertEqual(describe(machine, names), stateName, "the state is built as named")
                XCTAssertNil(machine.invariantViolation, "\(stateName)")
                let decision = apply(&machine, names)
                XCTAssertNil(machine.invariantViolation, "\(stateName) | \(eventName)")
                rows.append("\(stateName) | \(eventName) -> \(decision) => \(describe(machine, names))")
            }
        }
        if ProcessInfo.processInfo.environment["RJ_PRINT_TABLE"] != nil { print(rows.joined(separator: "\n")) }
        XCTAssertEqual(rows.count, expectedTable.count)
        for (row, expected) in zip(rows, expectedTable) { XCTAssertEqual(row, expected) }
    }
}

// Reviewed row by row against the rules (the machine's header); a change here is a change of
// semantics, to be said in docs/async-generators.md.
private let expectedTable: [String] = [
    "fresh | callerArrives(next) -> serve => running(caller)",
    "fresh | callerArrives(return) -> serve => running(caller)",
    "fresh | requestArrives(next c) -> serve c => running(request c)",
    "fresh | requestArrives(return c) -> serve c => running(request c)",
    "fresh | lastReaderLeaves -> close here, z waits => running(closing[z]) cancelled",
    "fresh | turnYielded(9) -> (not made: no turn) => fresh",
    "fresh | turnEnded -> (not made: no turn) => fresh",
    "fresh | readerCancelled(a) -> no a => fresh",
    "fresh | readerCancelled(a), the last reader -> no a => fresh",
    "fresh | readerCancelled(b) -> no b => fresh",
    "fresh | waiterArrives(a) -> no a => fresh",
    "fresh | turnAwaits, the caller now waits as e -> wait => fresh",
    "fresh | hint -> 3 => fresh",
    "fresh | released -> none => ended(normally)",
    "suspended | callerArrives(next) -> serve => running(caller)",
    "suspended | callerArrives(return) -> serve => running(caller)",
    "suspended | requestArrives(next c) -> serve c => running(request c)",
    "suspended | requestArrives(return c) -> serve c => running(request c)",
    "suspended | lastReaderLeaves -> close here, z waits => running(closing[z]) cancelled",
    "suspended | turnYielded(9) -> (not made: no turn) => suspended",
    "suspended | turnEnded -> (not made: no turn) => suspended",
    "suspended | readerCancelled(a) -> no a => suspended",
    "suspended | readerCancelled(a), the last reader -> no a => suspended",
    "suspended | readerCancelled(b) -> no b => suspended",
    "suspended | waiterArrives(a) -> no a => suspended",
    "suspended | turnAwaits, the caller now waits as e -> wait => suspended",
    "suspended | hint -> 1 => suspended",
    "suspended | released -> close now => running(closing[], released) cancelled",
    "suspended ahead[1,2] | callerArrives(next) -> take 1, produce => running(ahead) ahead[2]",
    "suspended ahead[1,2] | callerArrives(return) -> serve => running(caller)",
    "suspended ahead[1,2] | requestArrives(next c) -> answered yielded 1, produce => running(ahead) ahead[2]",
    "suspended ahead[1,2] | requestArrives(return c) -> serve c => running(request c)",
    "suspended ahead[1,2] | lastReaderLeaves -> close here, z waits => running(closing[z]) cancelled",
    "suspended ahead[1,2] | turnYielded(9) -> (not made: no turn) => suspended ahead[1,2]",
    "suspended ahead[1,2] | turnEnded -> (not made: no turn) => suspended ahead[1,2]",
    "suspended ahead[1,2] | readerCancelled(a) -> no a => suspended ahead[1,2]",
    "suspended ahead[1,2] | readerCancelled(a), the last reader -> no a => suspended ahead[1,2]",
    "suspended ahead[1,2] | readerCancelled(b) -> no b => suspended ahead[1,2]",
    "suspended ahead[1,2] | waiterArrives(a) -> no a => suspended ahead[1,2]",
    "suspended ahead[1,2] | turnAwaits, the caller now waits as e -> wait => suspended ahead[1,2]",
    "suspended ahead[1,2] | hint -> 3 => suspended ahead[1,2]",
    "suspended ahead[1,2] | released -> close now => running(closing[], released) cancelled",
    "suspended ahead[7] | callerArrives(next) -> take 7 => suspended",
    "suspended ahead[7] | callerArrives(return) -> serve => running(caller)",
    "suspended ahead[7] | requestArrives(next c) -> answered yielded 7 => suspended",
    "suspended ahead[7] | requestArrives(return c) -> serve c => running(request c)",
    "suspended ahead[7] | lastReaderLeaves -> close here, z waits => running(closing[z]) cancelled",
    "suspended ahead[7] | turnYielded(9) -> (not made: no turn) => suspended ahead[7]",
    "suspended ahead[7] | turnEnded -> (not made: no turn) => suspended ahead[7]",
    "suspended ahead[7] | readerCancelled(a) -> no waiter to resume => suspended ahead[7]",
    "suspended ahead[7] | readerCancelled(a), the last reader -> no waiter to resume => suspended ahead[7]",
    "suspended ahead[7] | readerCancelled(b) -> no b => suspended ahead[7]",
    "suspended ahead[7] | waiterArrives(a) -> (answered and handed over already) => suspended ahead[7]",
    "suspended ahead[7] | turnAwaits, the caller now waits as e -> wait => suspended ahead[7]",
    "suspended ahead[7] | hint -> 3 => suspended ahead[7]",
    "suspended ahead[7] | released -> close now => running(closing[], released) cancelled",
    "running(caller) | callerArrives(next) -> wait => running(caller)",
    "running(caller) | callerArrives(return) -> wait => running(caller)",
    "running(caller) | requestArrives(next c) -> queued c => running(caller) waiting[c]",
    "running(caller) | requestArrives(return c) -> queued c => running(caller) waiting[c]",
    "running(caller) | lastReaderLeaves -> answered: cancellation => running(caller)",
    "running(caller) | turnYielded(9) -> (not made: a caller's turn) => running(caller)",
    "running(caller) | turnEnded -> caller answered, [] => ended(normally)",
    "running(caller) | readerCancelled(a) -> no a => running(caller)",
    "running(caller) | readerCancelled(a), the last reader -> no a => running(caller)",
    "running(caller) | readerCancelled(b) -> no b => running(caller)",
    "running(caller) | waiterArrives(a) -> no a => running(caller)",
    "running(caller) | turnAwaits, the caller now waits as e -> wait => running(request e)",
    "running(caller) | hint -> 2 => running(caller)",
    "running(caller) | released -> close at next yield => running(caller, released) cancelled",
    "running(request a) | callerArrives(next) -> wait => running(request a)",
    "running(request a) | callerArrives(return) -> wait => running(request a)",
    "running(request a) | requestArrives(next c) -> queued c => running(request a) waiting[c]",
    "running(request a) | requestArrives(return c) -> queued c => running(request a) waiting[c]",
    "running(request a) | lastReaderLeaves -> answered: cancellation => running(request a)",
    "running(request a) | turnYielded(9) -> answer no waiter to resume, then stop => suspended kept[a: yielded 9]",
    "running(request a) | turnEnded -> [] => ended(normally) kept[a: result 0]",
    "running(request a) | readerCancelled(a) -> no waiter to resume => running(ahead) kept[a: cancellation]",
    "running(request a) | readerCancelled(a), the last reader -> no waiter to resume, interrupt => running(closing[a]) cancelled",
    "running(request a) | readerCancelled(b) -> no b => running(request a)",
    "running(request a) | waiterArrives(a) -> waits => running(request a)",
    "running(request a) | turnAwaits, the caller now waits as e -> wait => running(request a)",
    "running(request a) | hint -> 3 => running(request a)",
    "running(request a) | released -> close at next yield => running(request a, released) cancelled",
    "running(ahead) | callerArrives(next) -> wait => running(ahead)",
    "running(ahead) | callerArrives(return) -> wait => running(ahead)",
    "running(ahead) | requestArrives(next c) -> queued c => running(ahead) waiting[c]",
    "running(ahead) | requestArrives(return c) -> queued c => running(ahead) waiting[c]",
    "running(ahead) | lastReaderLeaves -> z waits => running(closing[z]) cancelled",
    "running(ahead) | turnYielded(9) -> answer no waiter to resume, then produce => running(ahead) ahead[9]",
    "running(ahead) | turnEnded -> [] => ended(normally)",
    "running(ahead) | readerCancelled(a) -> no a => running(ahead)",
    "running(ahead) | readerCancelled(a), the last reader -> no a => running(ahead)",
    "running(ahead) | readerCancelled(b) -> no b => running(ahead)",
    "running(ahead) | waiterArrives(a) -> no a => running(ahead)",
    "running(ahead) | turnAwaits, the caller now waits as e -> wait => running(ahead)",
    "running(ahead) | hint -> 3 => running(ahead)",
    "running(ahead) | released -> close at next yield => running(ahead, released) cancelled",
    "running(ahead) kept[a: cancellation] | callerArrives(next) -> wait => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | callerArrives(return) -> wait => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | requestArrives(next c) -> queued c => running(ahead) waiting[c] kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | requestArrives(return c) -> queued c => running(ahead) waiting[c] kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | lastReaderLeaves -> z waits => running(closing[z]) kept[a: cancellation] cancelled",
    "running(ahead) kept[a: cancellation] | turnYielded(9) -> answer no waiter to resume, then stop => suspended ahead[9] kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | turnEnded -> [] => ended(normally) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | readerCancelled(a) -> no waiter to resume => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | readerCancelled(a), the last reader -> no waiter to resume => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | readerCancelled(b) -> no b => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | waiterArrives(a) -> kept: cancellation => running(ahead)",
    "running(ahead) kept[a: cancellation] | turnAwaits, the caller now waits as e -> wait => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | hint -> 3 => running(ahead) kept[a: cancellation]",
    "running(ahead) kept[a: cancellation] | released -> close at next yield => running(ahead, released) kept[a: cancellation] cancelled",
    "running(dropping) kept[a: cancellation] | callerArrives(next) -> wait => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | callerArrives(return) -> wait => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | requestArrives(next c) -> queued c => running(dropping) waiting[c] kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | requestArrives(return c) -> queued c => running(dropping) waiting[c] kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | lastReaderLeaves -> z waits => running(closing[z]) kept[a: cancellation] cancelled",
    "running(dropping) kept[a: cancellation] | turnYielded(9) -> answer no waiter to resume, then stop => suspended kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | turnEnded -> [] => ended(normally) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | readerCancelled(a) -> no waiter to resume => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | readerCancelled(a), the last reader -> no waiter to resume => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | readerCancelled(b) -> no b => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | waiterArrives(a) -> kept: cancellation => running(dropping)",
    "running(dropping) kept[a: cancellation] | turnAwaits, the caller now waits as e -> wait => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | hint -> 3 => running(dropping) kept[a: cancellation]",
    "running(dropping) kept[a: cancellation] | released -> close at next yield => running(dropping, released) kept[a: cancellation] cancelled",
    "running(closing[a]) cancelled | callerArrives(next) -> wait => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | callerArrives(return) -> wait => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | requestArrives(next c) -> queued c => running(closing[a]) waiting[c] cancelled",
    "running(closing[a]) cancelled | requestArrives(return c) -> queued c => running(closing[a]) waiting[c] cancelled",
    "running(closing[a]) cancelled | lastReaderLeaves -> z waits => running(closing[a,z]) cancelled",
    "running(closing[a]) cancelled | turnYielded(9) -> refuse => running(closing[a], refused) cancelled",
    "running(closing[a]) cancelled | turnEnded -> [] => ended(byCancellation) kept[a: cancellation] cancelled",
    "running(closing[a]) cancelled | readerCancelled(a) -> no waiter to resume => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | readerCancelled(a), the last reader -> no waiter to resume => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | readerCancelled(b) -> no b => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | waiterArrives(a) -> waits => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | turnAwaits, the caller now waits as e -> wait => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | hint -> 0 => running(closing[a]) cancelled",
    "running(closing[a]) cancelled | released -> close at next yield => running(closing[a], released) cancelled",
    "running(closing[a], refused) cancelled | callerArrives(next) -> wait => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | callerArrives(return) -> wait => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | requestArrives(next c) -> queued c => running(closing[a], refused) waiting[c] cancelled",
    "running(closing[a], refused) cancelled | requestArrives(return c) -> queued c => running(closing[a], refused) waiting[c] cancelled",
    "running(closing[a], refused) cancelled | lastReaderLeaves -> z waits => running(closing[a,z], refused) cancelled",
    "running(closing[a], refused) cancelled | turnYielded(9) -> ignored cancellation: task 1 cancellation => running(closing[], refused) cancelled",
    "running(closing[a], refused) cancelled | turnEnded -> [task 1 cancellation] => ended(byCancellation) cancelled",
    "running(closing[a], refused) cancelled | readerCancelled(a) -> no waiter to resume => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | readerCancelled(a), the last reader -> no waiter to resume => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | readerCancelled(b) -> no b => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | waiterArrives(a) -> (waits already) => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | turnAwaits, the caller now waits as e -> wait => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | hint -> 0 => running(closing[a], refused) cancelled",
    "running(closing[a], refused) cancelled | released -> close at next yield => running(closing[a], released, refused) cancelled",
    "running(request a) waiting[b] | callerArrives(next) -> wait => running(request a) waiting[b]",
    "running(request a) waiting[b] | callerArrives(return) -> wait => running(request a) waiting[b]",
    "running(request a) waiting[b] | requestArrives(next c) -> queued c => running(request a) waiting[b,c]",
    "running(request a) waiting[b] | requestArrives(return c) -> queued c => running(request a) waiting[b,c]",
    "running(request a) waiting[b] | lastReaderLeaves -> answered: cancellation => running(request a) waiting[b]",
    "running(request a) waiting[b] | turnYielded(9) -> answer no waiter to resume, then serve next() => running(request b) kept[a: yielded 9]",
    "running(request a) waiting[b] | turnEnded -> [] => ended(normally) kept[a: result 0,b: outcome normally]",
    "running(request a) waiting[b] | readerCancelled(a) -> no waiter to resume => running(ahead) waiting[b] kept[a: cancellation]",
    "running(request a) waiting[b] | readerCancelled(a), the last reader -> no waiter to resume => running(ahead) waiting[b] kept[a: cancellation]",
    "running(request a) waiting[b] | readerCancelled(b) -> no waiter to resume => running(request a) kept[b: cancellation]",
    "running(request a) waiting[b] | waiterArrives(a) -> waits => running(request a) waiting[b]",
    "running(request a) waiting[b] | turnAwaits, the caller now waits as e -> wait => running(request a) waiting[b]",
    "running(request a) waiting[b] | hint -> 3 => running(request a) waiting[b]",
    "running(request a) waiting[b] | released -> close at next yield => running(request a, released) waiting[b] cancelled",
    "running(ahead) ahead[1] | callerArrives(next) -> take 1 => running(ahead)",
    "running(ahead) ahead[1] | callerArrives(return) -> wait => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | requestArrives(next c) -> answered yielded 1 => running(ahead)",
    "running(ahead) ahead[1] | requestArrives(return c) -> queued c => running(ahead) waiting[c]",
    "running(ahead) ahead[1] | lastReaderLeaves -> z waits => running(closing[z]) cancelled",
    "running(ahead) ahead[1] | turnYielded(9) -> answer no waiter to resume, then stop => suspended ahead[1,9]",
    "running(ahead) ahead[1] | turnEnded -> [] => ended(normally) ahead[1]",
    "running(ahead) ahead[1] | readerCancelled(a) -> no a => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | readerCancelled(a), the last reader -> no a => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | readerCancelled(b) -> no b => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | waiterArrives(a) -> no a => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | turnAwaits, the caller now waits as e -> wait => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | hint -> 3 => running(ahead) ahead[1]",
    "running(ahead) ahead[1] | released -> close at next yield => running(ahead, released) ahead[1] cancelled",
    "running(request a, released) cancelled | callerArrives(next) -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | callerArrives(return) -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | requestArrives(next c) -> queued c => running(request a, released) waiting[c] cancelled",
    "running(request a, released) cancelled | requestArrives(return c) -> queued c => running(request a, released) waiting[c] cancelled",
    "running(request a, released) cancelled | lastReaderLeaves -> answered: cancellation => running(request a, released) cancelled",
    "running(request a, released) cancelled | turnYielded(9) -> close for release => running(request a, released) cancelled",
    "running(request a, released) cancelled | turnEnded -> [] => ended(normally) kept[a: result 0] cancelled",
    "running(request a, released) cancelled | readerCancelled(a) -> no waiter to resume => running(ahead, released) kept[a: cancellation] cancelled",
    "running(request a, released) cancelled | readerCancelled(a), the last reader -> no waiter to resume, interrupt => running(closing[a], released) cancelled",
    "running(request a, released) cancelled | readerCancelled(b) -> no b => running(request a, released) cancelled",
    "running(request a, released) cancelled | waiterArrives(a) -> waits => running(request a, released) cancelled",
    "running(request a, released) cancelled | turnAwaits, the caller now waits as e -> wait => running(request a, released) cancelled",
    "running(request a, released) cancelled | hint -> 0 => running(request a, released) cancelled",
    "running(request a, released) cancelled | released -> close at next yield => running(request a, released) cancelled",
    "ended(normally) | callerArrives(next) -> outcome normally => ended(normally)",
    "ended(normally) | callerArrives(return) -> outcome normally => ended(normally)",
    "ended(normally) | requestArrives(next c) -> answered outcome normally => ended(normally)",
    "ended(normally) | requestArrives(return c) -> answered outcome normally => ended(normally)",
    "ended(normally) | lastReaderLeaves -> answered: cancellation => ended(normally)",
    "ended(normally) | turnYielded(9) -> (not made: no turn) => ended(normally)",
    "ended(normally) | turnEnded -> (not made: no turn) => ended(normally)",
    "ended(normally) | readerCancelled(a) -> no waiter to resume => ended(normally)",
    "ended(normally) | readerCancelled(a), the last reader -> no waiter to resume => ended(normally)",
    "ended(normally) | readerCancelled(b) -> no b => ended(normally)",
    "ended(normally) | waiterArrives(a) -> (answered and handed over already) => ended(normally)",
    "ended(normally) | turnAwaits, the caller now waits as e -> wait => ended(normally)",
    "ended(normally) | hint -> 3 => ended(normally)",
    "ended(normally) | released -> none => ended(normally)",
    "ended(normally) ahead[1] | callerArrives(next) -> take 1 => ended(normally)",
    "ended(normally) ahead[1] | callerArrives(return) -> outcome normally => ended(normally)",
    "ended(normally) ahead[1] | requestArrives(next c) -> answered yielded 1 => ended(normally)",
    "ended(normally) ahead[1] | requestArrives(return c) -> answered outcome normally => ended(normally)",
    "ended(normally) ahead[1] | lastReaderLeaves -> answered: cancellation => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnYielded(9) -> (not made: no turn) => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnEnded -> (not made: no turn) => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | readerCancelled(a) -> no a => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | readerCancelled(a), the last reader -> no a => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | readerCancelled(b) -> no b => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | waiterArrives(a) -> no a => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | turnAwaits, the caller now waits as e -> wait => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | hint -> 3 => ended(normally) ahead[1]",
    "ended(normally) ahead[1] | released -> none => ended(normally) ahead[1]",
    "ended(byCancellation) cancelled | callerArrives(next) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | callerArrives(return) -> outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | requestArrives(next c) -> answered outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | requestArrives(return c) -> answered outcome byCancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | lastReaderLeaves -> answered: cancellation => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnYielded(9) -> (not made: no turn) => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnEnded -> (not made: no turn) => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | readerCancelled(a) -> no waiter to resume => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | readerCancelled(a), the last reader -> no waiter to resume => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | readerCancelled(b) -> no b => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | waiterArrives(a) -> (answered and handed over already) => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | turnAwaits, the caller now waits as e -> wait => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | hint -> 0 => ended(byCancellation) cancelled",
    "ended(byCancellation) cancelled | released -> none => ended(byCancellation) cancelled",
]
