import ReelMPV
import ReelSnapcast

// The backend plays into the relay's FIFO; the daemon is where the two meet.
extension PCMRelay: AudioSink {}
