import Amalgam
import Foundation

/// What `amalgam rsync` checks before sqlite3_rsync runs, where SQLite's own messages would mislead: the same
/// file on both sides ("database is locked"), and a replica that cannot be attached (a message that shows
/// sqlite3_rsync's SQL unexpanded, `ATTACH %Q AS 'replica'`, and no file name when it is not a database).
enum RsyncCheck {
  /// sqlite3_rsync's options that take a value, without their leading dashes (one or two).
  static let optionsWithValue: Set<String> = [
    "protocol", "ssh", "port", "p", "exe", "logfile", "errorfile", "remote-errorfile", "debugfile",
    "remote-debugfile",
  ]

  /// ORIGIN and REPLICA among sqlite3_rsync's arguments, read as it reads them, or nil when one is missing.
  static func databases(in arguments: [String]) -> (origin: String, replica: String)? {
    var positionals: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument.hasPrefix("-") {
        if optionsWithValue.contains(String(argument.drop { $0 == "-" })) { index += 1 }
      } else {
        positionals.append(argument)
      }
    }
    guard positionals.count >= 2 else { return nil }
    return (positionals[0], positionals[1])
  }

  /// Whether `path` names a database on another host (`USER@HOST:PATH`): sqlite3_rsync's rule, a colon
  /// before any slash.
  static func isRemote(_ path: String) -> Bool {
    guard let colon = path.firstIndex(of: ":") else { return false }
    return !path[..<colon].contains("/") && !path[..<colon].contains("\\")
  }

  /// Why sqlite3_rsync cannot copy `origin` onto `replica`, both local, or nil when it can try.
  /// `keyed`: the databases are opened with a key (the replica is then checked with it).
  static func problem(origin: String, replica: String, keyed: Bool) -> String? {
    guard !isRemote(origin), !isRemote(replica) else { return nil }
    var originStatus = stat()
    var replicaStatus = stat()
    guard stat(replica, &replicaStatus) == 0 else {
      let parent = (replica as NSString).deletingLastPathComponent
      var isDirectory: ObjCBool = false
      if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
        return "cannot create the replica \(replica): there is no directory \(parent)"
      }
      return nil
    }
    if stat(origin, &originStatus) == 0, originStatus.st_dev == replicaStatus.st_dev,
      originStatus.st_ino == replicaStatus.st_ino
    {
      return "origin and replica are the same file: "
        + (origin == replica ? origin : "\(replica) is \(origin)")
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: replica, isDirectory: &isDirectory), isDirectory.boolValue {
      return "the replica \(replica) is a directory"
    }
    // The replica side attaches the replica, which reads its schema. A key reaches this connection as it
    // reaches sqlite3_rsync's, through the automatic extension.
    do {
      let db = try Database(path: replica, options: .readOnly)
      defer { try? db.close() }
      _ = try db.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self)
    } catch let error as SQLiteError where error.code == .notADatabase {
      return "the replica \(replica) exists and is not a database" + (keyed ? " that the key opens" : "")
    } catch {
      // Anything else (a lock held by another process, say) is sqlite3_rsync's to report.
    }
    return nil
  }
}
