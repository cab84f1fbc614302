import Foundation
import Glibc

/// What a process has done so far, read from procfs (proc(5)): each thread's context switches
/// (`/proc/<pid>/task/<tid>/status`) and name (`.../comm`), and the CPU time of the whole process
/// (`/proc/<pid>/stat` utime + stime, which also holds the time of threads that already ended).
///
/// A voluntary context switch is the thread giving up the CPU to wait (a futex, `epoll_wait`,
/// `nanosleep`, a blocking read): each one is followed by a wake-up, so the counts of two
/// snapshots tell the wake-ups in between. Nonvoluntary switches are preemptions (the thread
/// wanted to keep running), counted apart.
struct ProcessActivity: Sendable {
    struct Thread: Sendable {
        var id: Int
        /// `comm`: the name the thread gave itself (`pthread_setname_np`), at most 15 bytes.
        var name: String
        var voluntarySwitches: Int
        var nonvoluntarySwitches: Int
    }

    var processID: pid_t
    var threads: [Int: Thread]
    /// utime + stime of the whole process, in clock ticks (`sysconf(_SC_CLK_TCK)` a second).
    var cpuTicks: Int

    /// Reads `/proc/<processID>` now. A thread that ends while it is read is left out (it is not
    /// there at this end).
    static func read(_ processID: pid_t) throws(ChildBenchError) -> ProcessActivity {
        // The CPU time first: if the process has gone, its stat file is the first read that fails.
        let cpuTicks = try readCPUTicks(processID)
        let taskDirectory = "/proc/\(processID)/task"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: taskDirectory)
        } catch {
            throw .procUnreadable(path: taskDirectory, reason: "\(error)")
        }
        var threads: [Int: Thread] = [:]
        for name in names {
            guard let id = Int(name) else { continue }
            let directory = "\(taskDirectory)/\(name)"
            guard let status = try? String(contentsOfFile: "\(directory)/status", encoding: .utf8),
                  let comm = try? String(contentsOfFile: "\(directory)/comm", encoding: .utf8) else { continue }
            threads[id] = Thread(id: id, name: comm.trimmingCharacters(in: .newlines),
                                 voluntarySwitches: try field("voluntary_ctxt_switches", of: status, path: directory),
                                 nonvoluntarySwitches: try field("nonvoluntary_ctxt_switches", of: status, path: directory))
        }
        guard !threads.isEmpty else { throw .procUnreadable(path: taskDirectory, reason: "no thread could be read") }
        return ProcessActivity(processID: processID, threads: threads, cpuTicks: cpuTicks)
    }

    /// utime (field 14) + stime (field 15) of `/proc/<pid>/stat`. The fields are counted after
    /// the last `)`: the command name before it, in parentheses, may itself hold spaces and `)`.
    private static func readCPUTicks(_ processID: pid_t) throws(ChildBenchError) -> Int {
        let path = "/proc/\(processID)/stat"
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .procUnreadable(path: path, reason: "the process has ended")
        }
        guard let close = stat.lastIndex(of: ")") else { throw .malformed(path: path, field: "comm") }
        // Fields 3 ... after the name: state is index 0, so utime (14) is 11 and stime (15) 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw .malformed(path: path, field: "utime/stime")
        }
        return user + system
    }

    /// The number after `name:` in a status file (`voluntary_ctxt_switches:\t1234`).
    private static func field(_ name: String, of status: String, path: String) throws(ChildBenchError) -> Int {
        let prefix = name + ":"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
              let value = Int(line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)) else {
            throw .malformed(path: "\(path)/status", field: name)
        }
        return value
    }
}
