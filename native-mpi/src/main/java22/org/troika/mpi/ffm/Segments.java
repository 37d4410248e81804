package org.troika.mpi.ffm;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.troika.mpi.Communicator;
import org.troika.mpi.Datatype;
import org.troika.mpi.Op;
import org.troika.mpi.Request;
import org.troika.mpi.Status;

/**
 * {@link MemorySegment} forms of {@link Communicator}'s calls (JDK 22+): off-heap memory from an {@code Arena}
 * goes to MPI as it is, its element count is the segment's size over the datatype's. Segments must be native
 * (heap segments: pass the array itself) and alive; for a non-blocking call, keep the arena open until the
 * {@link Request} completes. Checks happen in Java before MPI sees the call, as for buffers.
 */
public final class Segments {
    private Segments() {}

    public static void allreduce(Communicator comm, MemorySegment send, MemorySegment recv, Datatype type, Op op) {
        int n = count(send, type, "send");
        same(n, count(recv, type, "recv"));
        writable(recv, "recv");
        comm.allreduce(send.address(), recv.address(), n, type, op);
    }

    /** In place. */
    public static void allreduce(Communicator comm, MemorySegment data, Datatype type, Op op) {
        writable(data, "data");
        comm.allreduceInPlace(data.address(), count(data, type, "data"), type, op);
    }

    public static void broadcast(Communicator comm, MemorySegment data, Datatype type, int root) {
        comm.broadcast(data.address(), count(data, type, "data"), type, root);
    }

    /** {@code recv} holds size × send's elements. */
    public static void allgather(Communicator comm, MemorySegment send, MemorySegment recv, Datatype type) {
        int n = count(send, type, "send");
        writable(recv, "recv");
        if ((long) n * comm.size() != count(recv, type, "recv")) {
            throw new IllegalArgumentException("recv holds " + count(recv, type, "recv") + " elements but size × send is "
                    + (long) n * comm.size());
        }
        comm.allgather(send.address(), n, recv.address(), type);
    }

    public static void send(Communicator comm, MemorySegment data, Datatype type, int dest, int tag) {
        comm.send(data.address(), count(data, type, "data"), type, dest, tag);
    }

    public static Status recv(Communicator comm, MemorySegment data, Datatype type, int source, int tag) {
        writable(data, "data");
        return comm.recv(data.address(), count(data, type, "data"), type, source, tag);
    }

    public static Request isend(Communicator comm, MemorySegment data, Datatype type, int dest, int tag) {
        return comm.isend(data.address(), count(data, type, "data"), type, dest, tag);
    }

    public static Request irecv(Communicator comm, MemorySegment data, Datatype type, int source, int tag) {
        writable(data, "data");
        return comm.irecv(data.address(), count(data, type, "data"), type, source, tag);
    }

    public static Request iallreduce(Communicator comm, MemorySegment send, MemorySegment recv, Datatype type,
            Op op) {
        int n = count(send, type, "send");
        same(n, count(recv, type, "recv"));
        writable(recv, "recv");
        return comm.iallreduce(send.address(), recv.address(), n, type, op);
    }

    public static Request ibcast(Communicator comm, MemorySegment data, Datatype type, int root) {
        return comm.ibcast(data.address(), count(data, type, "data"), type, root);
    }

    /** Elements of {@code type} in a native, live segment whose size is a multiple of the element size. */
    static int count(MemorySegment segment, Datatype type, String name) {
        Objects.requireNonNull(segment, name);
        Objects.requireNonNull(type, "type");
        if (!segment.isNative()) {
            throw new IllegalArgumentException(name + " is a heap segment: pass the Java array itself, or allocate "
                    + "the segment from an Arena");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException(name + "'s arena is closed");
        }
        long bytes = segment.byteSize();
        if (bytes % type.bytes() != 0) {
            throw new IllegalArgumentException(name + " has " + bytes + " bytes, not a multiple of " + type + "'s "
                    + type.bytes());
        }
        if (bytes / type.bytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " has " + bytes / type.bytes() + " elements; MPI counts are "
                    + "ints: split it");
        }
        if (bytes > 0 && segment.address() == 0) {
            throw new IllegalArgumentException(name + " is the NULL segment");
        }
        return (int) (bytes / type.bytes());
    }

    private static void same(int send, int recv) {
        if (send != recv) {
            throw new IllegalArgumentException("send has " + send + " elements but recv has " + recv
                    + ": they must match");
        }
    }

    private static void writable(MemorySegment segment, String name) {
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException(name + " is read-only but receives data");
        }
    }
}
