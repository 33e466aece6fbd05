#!/usr/bin/env python3
"""A kept verifier (build/grading/solNN --verifier-requests), served as the grader serves it.

  kept_verifier_requests.py PROGRAM OUTPUTS

Starts PROGRAM with one end of a socket pair as its descriptor 3 and sends it four requests one
after another (a verification of lab 01's simple variant from the stored OUTPUTS, the same again,
a request that is no verification, the verification again), each reply read before the next
request; then closes our end. Then a second one, whose one request is followed by a request cut
short by the close. Prints each one's replies and how it ended, on one line:
  REPLY | REPLY | ... | ended CODE ; cut short: REPLY | ended CODE
Called by the grading suite.
"""
import os, socket, subprocess, sys
program, outputs = sys.argv[1], sys.argv[2]
verification = ["--verify-outputs", outputs, "--variant", "simple", "--size", "7", "--seed", "3"]

def serve(requests, tail=b""):
    """Each request's reply, then how the verifier ended once `tail` was sent and our end closed."""
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(["/bin/sh", "-c", 'exec "$0" --verifier-requests 3<&%d' % theirs.fileno(), program],
                            pass_fds=(theirs.fileno(),), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    theirs.close()
    replies = []
    for words in requests:
        ours.sendall(b"".join(w.encode() + b"\0" for w in words) + b"\0")
        line = b""
        while not line.endswith(b"\n"):
            byte = ours.recv(1)
            if not byte:
                break
            line += byte
        replies.append(line.decode().strip())
    ours.sendall(tail)
    ours.shutdown(socket.SHUT_WR)
    return " | ".join(replies + ["ended %d" % proc.wait(timeout=120)])

print(serve((verification, verification, ["--variant", "simple", "--size", "7"], verification)),
      "; cut short:", serve((verification,), b"--variant\0simple"))
