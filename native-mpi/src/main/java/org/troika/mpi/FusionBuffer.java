package org.troika.mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.TroikaEnv;

/**
 * Batches many small allreduces into few large ones (tensor fusion, as Horovod does): arrays added with
 * {@link #add} are packed into one native buffer and reduced together when the buffer would overflow its threshold
 * or on {@link #flush()}; each array holds its reduced values once the flush that covers it returns.
 *
 * <p>A model with thousands of small gradient tensors thus pays about {@code totalBytes / threshold + 1}
 * collectives per step instead of one per tensor. An array larger than the threshold is reduced on its own.
 * Every rank must add the same arrays (lengths, order) between flushes. Not thread-safe.
 */
public final class FusionBuffer {
    /** Horovod's default fusion threshold. */
    public static final int DEFAULT_THRESHOLD_BYTES = 64 << 20;

    private final Communicator comm;
    private final Datatype type;
    private final Op op;
    private final Staging buffer;
    private final long address;
    private final List<Object> pending = new ArrayList<>();
    private long pendingBytes;
    private long collectives;

    /**
     * A fusion buffer of the rank's default size: {@code TROIKA_FUSION_THRESHOLD} bytes when set (a config file's
     * {@code params.fusion_threshold_mb}), else {@link #DEFAULT_THRESHOLD_BYTES}; at least one element.
     */
    public FusionBuffer(Communicator comm, Datatype type, Op op) {
        this(comm, type, op, Math.max(defaultThresholdBytes(System.getenv()), type.bytes()));
    }

    /**
     * {@value TroikaEnv#FUSION_THRESHOLD} from {@code env} (bytes; 0 means every array on its own), else
     * {@link #DEFAULT_THRESHOLD_BYTES}.
     *
     * @throws IllegalArgumentException when the value is not a whole number from 0 to {@link Integer#MAX_VALUE}
     */
    public static int defaultThresholdBytes(Map<String, String> env) {
        String v = env.getOrDefault(TroikaEnv.FUSION_THRESHOLD, "").strip();
        if (v.isEmpty()) {
            return DEFAULT_THRESHOLD_BYTES;
        }
        try {
            int bytes = Integer.parseInt(v);
            if (bytes >= 0) {
                return bytes;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(TroikaEnv.FUSION_THRESHOLD + "='" + v + "' is not a byte count from 0 to "
                + Integer.MAX_VALUE);
    }

    /**
     * @param type the element type of every array added ({@code FLOAT}, {@code DOUBLE}, {@code INT} or {@code LONG})
     * @param thresholdBytes size of the fusion buffer (allocated once, in native memory)
     */
    public FusionBuffer(Communicator comm, Datatype type, Op op, int thresholdBytes) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.type = Objects.requireNonNull(type, "type");
        this.op = Objects.requireNonNull(op, "op");
        if (type == Datatype.BYTE) {
            throw new IllegalArgumentException("fusion reduces numbers: use FLOAT, DOUBLE, INT or LONG, not BYTE");
        }
        if (thresholdBytes < type.bytes()) {
            throw new IllegalArgumentException("fusion threshold " + thresholdBytes + " B is smaller than one element");
        }
        this.buffer = new Staging(comm.nativeMpi(), thresholdBytes);
        this.address = buffer.ensure(thresholdBytes);
    }

    public void add(float[] tensor) {
        addArray(tensor);
    }

    public void add(double[] tensor) {
        addArray(tensor);
    }

    public void add(int[] tensor) {
        addArray(tensor);
    }

    public void add(long[] tensor) {
        addArray(tensor);
    }

    private void addArray(Object tensor) {
        Datatype t = HeapArrays.type(tensor);
        if (t != type) {
            throw new IllegalArgumentException("this fusion buffer reduces " + type + " arrays, not " + t);
        }
        int n = HeapArrays.length(tensor);
        long bytes = (long) n * type.bytes();
        if (bytes > buffer.capacity()) {
            flush();
            reduceAlone(tensor);
            return;
        }
        if (pendingBytes + bytes > buffer.capacity()) {
            flush();
        }
        buffer.put(tensor, 0, n, pendingBytes);
        pending.add(tensor);
        pendingBytes += bytes;
    }

    /** Reduces everything added since the last flush with one collective; does nothing when nothing is pending. */
    public void flush() {
        if (pending.isEmpty()) {
            return;
        }
        comm.allreduceInPlace(address, (int) (pendingBytes / type.bytes()), type, op);
        collectives++;
        long at = 0;
        for (Object tensor : pending) {
            int n = HeapArrays.length(tensor);
            buffer.get(at, tensor, 0, n);
            at += (long) n * type.bytes();
        }
        pending.clear();
        pendingBytes = 0;
    }

    /** Collectives issued so far (for tests and benchmarks). */
    public long collectives() {
        return collectives;
    }

    private void reduceAlone(Object tensor) {
        switch (type) {
            case FLOAT -> comm.allreduce((float[]) tensor, op);
            case DOUBLE -> comm.allreduce((double[]) tensor, op);
            case INT -> comm.allreduce((int[]) tensor, op);
            default -> comm.allreduce((long[]) tensor, op);
        }
        collectives++;
    }
}
