import CRJContext
import Foundation
import XCTest

@testable import RJIterator

enum Locals {
    @TaskLocal static var name: String = "default"
    @TaskLocal static var depth: Int = 0
}

/// Task-local values bound with `withValue` outside any task live in a per-thread list of the
/// concurrency runtime; a generator keeps its own bindings across its switches.
final class TaskLocalTests: XCTestCase {
    func testTaskLocalsAreTrackedOnLinux() {
        #if os(Linux)
        XCTAssertEqual(rj_task_locals_tracked(), 1, "the runtime's task-local fallback slot was not found")
        #endif
    }

    func testBodyBindingDoesNotLeakToTheCaller() throws {
        try XCTSkipUnless(rj_task_locals_tracked() == 1)
        let gen = Generator<String, Void, String> { y in
            try Locals.$name.withValue("body") {
                try y.yield(Locals.name)
                try y.yield(Locals.name)
            }
            return Locals.name
        }
        XCTAssertEqual(try gen.next().yieldedValue, "body")
        XCTAssertEqual(Locals.name, "default", "the caller must not see the body's binding")
        XCTAssertEqual(try gen.next().yieldedValue, "body", "the body keeps its binding across a yield")
        XCTAssertEqual(Locals.name, "default")
        XCTAssertEqual(try gen.next().returnedValue, "default")
        XCTAssertEqual(Locals.name, "default")
    }

    func testBodySeesTheResumersBindingsBelowItsOwn() throws {
        try XCTSkipUnless(rj_task_locals_tracked() == 1)
        let gen = Generator<String, Void, Void> { y in
            try y.yield("\(Locals.name)/\(Locals.depth)")
            try Locals.$depth.withValue(2) {
                try y.yield("\(Locals.name)/\(Locals.depth)")
                try y.yield("\(Locals.name)/\(Locals.depth)")
            }
            try y.yield("\(Locals.name)/\(Locals.depth)")
        }
        let first = Locals.$name.withValue("outer") { try? gen.next().yieldedValue }
        XCTAssertEqual(first, "outer/0")
        let second = Locals.$name.withValue("again") { try? gen.next().yieldedValue }
        XCTAssertEqual(second, "again/2", "the body's own binding on top of the current resumer's")
        XCTAssertEqual(Locals.depth, 0)
        XCTAssertEqual(try gen.next().yieldedValue, "default/2")
        XCTAssertEqual(try gen.next().yieldedValue, "default/0")
        XCTAssertEqual(Locals.name, "default")
        XCTAssertEqual(Locals.depth, 0)
    }

    func testBindingFollowsTheGeneratorToAnotherThread() throws {
        try XCTSkipUnless(rj_task_locals_tracked() == 1)
        let gen = Generator<String, Void, Void> { y in
            try Locals.$name.withValue("mine") {
                try y.yield(Locals.name)
                try y.yield(Locals.name)
            }
            try y.yield(Locals.name)
        }
        XCTAssertEqual(try gen.next().yieldedValue, "mine")
        let box = UnsafeTransfer(gen)
        let log = UnsafeTransfer(Log())
        onOtherThread {
            log.value.add(Locals.name)
            log.value.add((try? box.value.next())?.yieldedValue ?? "error")
            log.value.add(Locals.name)
            Locals.$name.withValue("thread") {
                log.value.add((try? box.value.next())?.yieldedValue ?? "error")
            }
            log.value.add(Locals.name)
        }
        XCTAssertEqual(log.value.all, ["default", "mine", "default", "thread", "default"])
        XCTAssertEqual(Locals.name, "default")
    }

    func testReleasingABodyInsideABindingUnwindsIt() throws {
        try XCTSkipUnless(rj_task_locals_tracked() == 1)
        do {
            let gen = Generator<Int, Void, Void> { y in
                try Locals.$depth.withValue(5) { try y.yield(Locals.depth) }
            }
            XCTAssertEqual(try gen.next().yieldedValue, 5)
        }
        XCTAssertEqual(Locals.depth, 0)
        Locals.$depth.withValue(1) { XCTAssertEqual(Locals.depth, 1) }
        XCTAssertEqual(Locals.depth, 0)
    }
}
