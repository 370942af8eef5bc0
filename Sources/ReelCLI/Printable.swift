import ReelCore

extension String {
    /// Every control character escaped: for one field of a one-line output.
    public var printable: String { escapingControls() }

    /// Control characters but newline and tab escaped: for whole outputs.
    var terminalSafe: String { escapingControls(keeping: ["\n", "\t"]) }
}
