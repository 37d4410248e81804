package org.troika.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Objects;

/**
 * Tensors that live side by side in one native buffer, so one allreduce covers them all <em>without copying</em>
 * (gradient buckets, as PyTorch's DistributedDataParallel keeps them). Where {@link FusionBuffer} packs Java arrays
 * in and out at every step, a bucket hands out direct-buffer views once; the model writes its gradients into them
 * and {@link #allreduce()} reduces every view in place with one collective.
 *
 * <p>Every rank must create the same views in the same order. Views stay valid as long as the bucket is reachable.
 * Not thread-safe.
 */
public final class TensorBucket {
    private final Communicator comm;
    private final Datatype type;
    private final Op op;
    private final ByteBuffer bytes;
    private final long address;
    private int used;
    private long collectives;

    /**
     * @param type the element type of every view ({@code FLOAT}, {@code DOUBLE}, {@code INT} or {@code LONG})
     * @param capacityBytes native memory reserved for all views together
     */
    public TensorBucket(Communicator comm, Datatype type, Op op, int capacityBytes) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.type = Objects.requireNonNull(type, "type");
        this.op = Objects.requireNonNull(op, "op");
        if (type == Datatype.BYTE) {
            throw new IllegalArgumentException("a bucket reduces numbers: use FLOAT, DOUBLE, INT or LONG, not BYTE");
        }
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacity " + capacityBytes + " is negative");
        }
        this.bytes = NativeBuffers.allocate(capacityBytes);
        this.address = comm.addressOf(bytes);
    }

    public FloatBuffer floats(int length) {
        return reserve(Datatype.FLOAT, length).asFloatBuffer();
    }

    public DoubleBuffer doubles(int length) {
        return reserve(Datatype.DOUBLE, length).asDoubleBuffer();
    }

    public IntBuffer ints(int length) {
        return reserve(Datatype.INT, length).asIntBuffer();
    }

    public LongBuffer longs(int length) {
        return reserve(Datatype.LONG, length).asLongBuffer();
    }

    private ByteBuffer reserve(Datatype requested, int length) {
        if (requested != type) {
            throw new IllegalArgumentException("this bucket holds " + type + " tensors, not " + requested);
        }
        if (length < 0) {
            throw new IllegalArgumentException("tensor length " + length + " is negative");
        }
        long size = (long) length * type.bytes();
        if (used + size > bytes.capacity()) {
            throw new IllegalStateException("bucket full: " + used + " of " + bytes.capacity() + " bytes used, "
                    + size + " more requested; create it with a larger capacity");
        }
        ByteBuffer view = bytes.slice(used, (int) size).order(ByteOrder.nativeOrder());
        used += (int) size;
        return view;
    }

    /** Reduces every view handed out so far, in place, with one collective (none when no view exists). */
    public void allreduce() {
        if (used == 0) {
            return;
        }
        comm.allreduceInPlace(address, used / type.bytes(), type, op);
        collectives++;
    }

    /** Bytes taken by the views so far. */
    public int usedBytes() {
        return used;
    }

    /** Collectives issued so far. */
    public long collectives() {
        return collectives;
    }
}
