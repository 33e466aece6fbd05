// The program's end of the result channel (--channel FD, given by the grader): the one writer of
// its records, with one lock and one sequence number (the format: channel_format.h). Host-only
// C++, part of the grading harness (linked only into the programs the grader builds); without
// --channel it is off and costs nothing.
//
// The CUPTI trace library, loaded into the program by the grader, finds the exported
// cudalabs_channel_write with dlsym and writes its KERNEL records through it; the harness calls
// the library's cudalabs_trace_flush (also found with dlsym) before the end of every case and
// timed repetition, so each kernel lands in the case and repetition it ran in.
#pragma once
#include <cstdint>
#include <string>

#include "channel_format.h"

namespace cudalabs {
namespace channel {

// Opens the channel on file descriptor `fd` (marked close-on-exec; SIGPIPE is ignored so that a
// closed pipe is reported, not fatal), writes RUN_BEGIN, then what was offered before (records
// of code that ran before main). Throws UsageError when `fd` is not open for writing.
void open(int fd);
// Without --channel: what is offered from now on is dropped.
void disable();
// Open and not yet finished.
bool active();

// Records of the harness. A write that fails (the grader stopped reading) ends the program
// with a message and exit code 1. Nothing is written unless active().
void write(RecordType type, const std::string& payload);
void write_output(uint32_t k, const void* data, uint64_t bytes);
void write_timed_output(uint32_t k, uint32_t rep, const void* data, uint64_t bytes);
// A TRANSFER record (from the grading shims); before open() it is kept until open().
void write_transfer(const char* api, Direction direction, uint64_t bytes);

// Has the kernel trace, if it is loaded, deliver the records it holds (synchronously).
void flush_trace();
// flush_trace, RUN_END, close. Later records are dropped.
void finish();

}  // namespace channel
}  // namespace cudalabs

// The entry point of the trace library: KERNEL and TRACE_READY records only, payload encoded as
// in channel_format.h. Returns 0 when the record was written (or dropped because the channel is
// off or finished), -1 when it was refused (another type, a payload that does not parse).
extern "C" __attribute__((visibility("default"))) int cudalabs_channel_write(uint32_t type, const void* payload,
                                                                             uint64_t length);
