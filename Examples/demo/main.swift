// swift run demo login
//
// The seed's login flow (login -> query info -> download avatar -> effect), against simulated
// asynchronous services (timers on background queues), written twice: with nested callbacks
// and as straight-line code with rj_async / rj_await. Then the failure path: the query step
// fails, the body returns early, and `finally` still runs.
import Foundation
import RJIterator

// MARK: Simulated services (each answers on a background queue after a short delay)

let delay = 0.05

func service(_ name: String, answer: Any?, error: (any Error)? = nil) -> RJAsyncClosure {
    let box = UncheckedAnswer(answer)
    return { callback in
        print("  -> \(name)...")
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { callback(box.value, error) }
    }
}

/// The services' answers are plain dictionaries and strings, handed across queues once.
struct UncheckedAnswer: @unchecked Sendable {
    let value: Any?
    init(_ value: Any?) { self.value = value }
}

struct QueryFailed: Error, CustomStringConvertible {
    var description: String { "the server said no" }
}

func login(account: String, pwd: String) -> RJAsyncClosure {
    service("login \(account)", answer: ["uid": "80022", "token": "67625235555"])
}

func query(uid: String, token: String, failing: Bool) -> RJAsyncClosure {
    failing ? service("query \(uid)", answer: nil, error: QueryFailed())
        : service("query \(uid)", answer: ["name": "JimGreen", "url": "https://example.invalid/head.jpg"])
}

func download(url: String) -> RJAsyncClosure {
    service("download \(url)", answer: "<image 64x64>")
}

func makeEffect(image: String) -> RJAsyncClosure {
    service("effect on \(image)", answer: "<beautiful image 64x64>")
}

// MARK: 1. Nested callbacks

func loginWithCallbacks(failing: Bool, done: @escaping @Sendable () -> Void) {
    print("[callbacks] show progress")
    login(account: "112233", pwd: "445566")({ value, error in
        guard error == nil, let json = value as? [String: String] else {
            print("[callbacks] login failed: \(error!)"); print("[callbacks] dismiss progress"); return done()
        }
        print("[callbacks] logged in as \(json["uid"]!)")
        query(uid: json["uid"]!, token: json["token"]!, failing: failing)({ value, error in
            guard error == nil, let info = value as? [String: String] else {
                print("[callbacks] query failed: \(error!)"); print("[callbacks] dismiss progress"); return done()
            }
            print("[callbacks] name \(info["name"]!)")
            download(url: info["url"]!)({ value, error in
                guard error == nil, let image = value as? String else {
                    print("[callbacks] download failed: \(error!)"); print("[callbacks] dismiss progress"); return done()
                }
                makeEffect(image: image)({ value, error in
                    guard error == nil, let result = value as? String else {
                        print("[callbacks] effect failed: \(error!)"); print("[callbacks] dismiss progress"); return done()
                    }
                    print("[callbacks] all done: \(result)")
                    print("[callbacks] dismiss progress")
                    done()
                })
            })
        })
    })
}

// MARK: 2. rj_async / rj_await

func loginWithAwait(failing: Bool) -> RJAsyncTask {
    rj_async {
        print("[rj_await] show progress (main thread: \(Thread.isMainThread))")
        var result = rj_await(login(account: "112233", pwd: "445566"))
        if let error = result.error {
            print("[rj_await] login failed: \(error)")
            return
        }
        let loginJSON = result.value as! [String: String]
        print("[rj_await] logged in as \(loginJSON["uid"]!)")

        result = rj_await(query(uid: loginJSON["uid"]!, token: loginJSON["token"]!, failing: failing))
        if let error = result.error {
            print("[rj_await] query failed: \(error)")
            return
        }
        let info = result.value as! [String: String]
        print("[rj_await] name \(info["name"]!)")

        result = rj_await(download(url: info["url"]!))
        if let error = result.error {
            print("[rj_await] download failed: \(error)")
            return
        }
        let image = result.value as! String

        result = rj_await(makeEffect(image: image))
        if let error = result.error {
            print("[rj_await] effect failed: \(error)")
            return
        }
        print("[rj_await] all done: \(result.value as! String) (main thread: \(Thread.isMainThread))")
    }
    .finally {
        print("[rj_await] finally: dismiss progress")
    }
}

// MARK: Main

let usage = """
    usage: swift run demo [login]
      login    the seed's login flow: with nested callbacks, then with rj_async/rj_await,
               then its failure path (the default)
      --help   this text
    """
let mode = CommandLine.arguments.dropFirst().first ?? "login"
if mode == "--help" || mode == "-h" {
    print(usage)
    exit(0)
}
guard mode == "login" else {
    FileHandle.standardError.write(Data("demo: unknown mode \"\(mode)\"\n\(usage)\n".utf8))
    exit(2)
}

print("== 1. nested callbacks")
let callbacksDone = DispatchSemaphore(value: 0)
loginWithCallbacks(failing: false) { callbacksDone.signal() }
callbacksDone.wait()

print("\n== 2. rj_async / rj_await, on the main queue")
loginWithAwait(failing: false).runMainLoop()

print("\n== 3. the failure path: the query step fails, finally still runs")
loginWithAwait(failing: true).runMainLoop()
