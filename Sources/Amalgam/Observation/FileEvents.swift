import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Wakes ``ForeignCommitWatcher`` when a database file, its `-wal` or its `-journal` is written,
/// created, deleted or renamed: inotify on Linux, `DispatchSource` file-system events on Apple
/// platforms. `nil` where neither exists; the watcher then polls.
///
/// It never opens a database file nor its `-shm`: closing a descriptor of a file releases every POSIX
/// lock that the process holds on it, SQLite's included. Linux watches the directories (inotify opens
/// nothing); Apple platforms open the directories, the `-wal` and the `-journal`, on which SQLite takes
/// no lock. Used only on the watcher's queue.
final class FileEvents: @unchecked Sendable {
  // @unchecked Sendable: every field is only used on `queue` (the sources' handlers run there).
  /// What the handler is told: which database path an event concerned, or `nil` when events may have
  /// been lost (any file may have changed).
  typealias Handler = (_ databasePath: String?) -> Void

  private let queue: DispatchQueue
  private let handler: Handler
  private var databasePaths: Set<String> = []

  #if os(Linux)
    private let descriptor: Int32
    private let source: any DispatchSourceRead
    /// The directory of each inotify watch, and the database paths watched in it, by file name.
    private var directories: [Int32: (path: String, files: [String: String])] = [:]
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    init?(queue: DispatchQueue, handler: @escaping Handler) {
      let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard descriptor >= 0 else { return nil }
      self.queue = queue
      self.handler = handler
      self.descriptor = descriptor
      source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
      source.setEventHandler { [weak self] in self?.readEvents() }
      source.setCancelHandler { close(descriptor) }
      source.resume()
    }

    /// Watches `paths` (database files) and no other.
    func watch(_ paths: Set<String>) {
      guard paths != databasePaths else { return }
      databasePaths = paths
      for wd in directories.keys { inotify_rm_watch(descriptor, wd) }
      directories = [:]
      let mask = UInt32(
        IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
      for path in paths {
        let (directory, name) = Self.split(path)
        let wd = inotify_add_watch(descriptor, directory, mask)
        guard wd >= 0 else { continue }
        var entry = directories[wd] ?? (path: directory, files: [:])
        for suffix in ["", "-wal", "-journal"] { entry.files[name + suffix] = path }
        directories[wd] = entry
      }
    }

    func cancel() { source.cancel() }

    private func readEvents() {
      var relevant: Set<String> = []
      var lost = false
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        buffer.withUnsafeBytes { bytes in
          var offset = 0
          // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
          while offset + 16 <= count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
            offset += 16 + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
              lost = true
              continue
            }
            guard let directory = directories[wd] else { continue }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
              // The directory itself went away or moved: every file in it may have been replaced.
              relevant.formUnion(directory.files.values)
              continue
            }
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            if let path = directory.files[name] { relevant.insert(path) }
          }
        }
      }
      if lost {
        handler(nil)
      } else {
        for path in relevant { handler(path) }
      }
    }
  #elseif canImport(Darwin)
    /// A source for each watched directory, `-wal` and `-journal`, by path, with a number that tells
    /// a source's handler whether the entry is still its own.
    private var sources: [String: (source: any DispatchSourceFileSystemObject, token: Int)] = [:]
    private var nextToken = 0

    init?(queue: DispatchQueue, handler: @escaping Handler) {
      self.queue = queue
      self.handler = handler
    }

    /// Watches `paths` (database files) and no other.
    func watch(_ paths: Set<String>) {
      if paths != databasePaths {
        databasePaths = paths
        for (_, entry) in sources { entry.source.cancel() }
        sources = [:]
      }
      arm()
    }

    func cancel() {
      databasePaths = []
      for (_, entry) in sources { entry.source.cancel() }
      sources = [:]
    }

    /// Opens a source on each file that exists and has none yet: a `-wal` or `-journal` created since
    /// gets one when its directory reports the creation.
    private func arm() {
      for database in databasePaths {
        let directory = Self.split(database).directory
        for path in [directory, database + "-wal", database + "-journal"] where sources[path] == nil {
          let descriptor = open(path, O_EVTONLY)
          guard descriptor >= 0 else { continue }
          let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.write, .extend, .delete, .rename, .revoke], queue: queue)
          nextToken += 1
          let token = nextToken
          source.setEventHandler { [weak self] in
            guard let self, let entry = sources[path], entry.token == token else { return }
            if !entry.source.data.isDisjoint(with: [.delete, .rename, .revoke]) {
              entry.source.cancel()
              sources[path] = nil
            }
            if path == directory {
              arm()
              for database in databasePaths where Self.split(database).directory == directory { handler(database) }
            } else {
              handler(database)
            }
          }
          source.setCancelHandler { close(descriptor) }
          sources[path] = (source, token)
          source.resume()
        }
      }
    }
  #else
    init?(queue: DispatchQueue, handler: @escaping Handler) { return nil }
    func watch(_ paths: Set<String>) {}
    func cancel() {}
  #endif

  /// The directory and the file name of `path`.
  static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }
}
