"""ADBench workloads (GMM, LSTM, BA, Hand): data readers, our C objectives and
hand-written derivatives, and a ctypes bridge to them. See README.md."""
