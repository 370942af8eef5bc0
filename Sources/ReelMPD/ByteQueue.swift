/// Bytes waiting to be sent, as the chunks they were answered in: what is
/// sent is released at once, so a client that reads slowly while it keeps
/// asking holds only what it has not read yet.
struct ByteQueue {
    private var chunks: [[UInt8]] = []
    /// The first chunk still held, and how much of it has gone.
    private var head = 0
    private var offset = 0
    private(set) var count = 0

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        count += bytes.count
    }

    /// Hands the unsent part of the first chunk to `write`, which returns
    /// how many bytes went (or a negative error); returns that.
    mutating func send(_ write: (UnsafeRawBufferPointer) -> Int) -> Int {
        guard head < chunks.count else { return 0 }
        let written = chunks[head].withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        if written > 0 { consume(written) }
        return written
    }

    private mutating func consume(_ n: Int) {
        count -= n
        offset += n
        if offset == chunks[head].count {
            chunks[head] = []   // released now, not when the queue empties
            head += 1
            offset = 0
        }
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: chunks.count < 1024)
            head = 0
        } else if head >= 64 && head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
