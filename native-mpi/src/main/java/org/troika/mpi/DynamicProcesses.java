package org.troika.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.troika.common.exec.NativeText;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeFunction;
import org.troika.mpi.spi.NativeMpi;

/**
 * MPI's dynamic-process calls ({@code MPI_Comm_spawn}, {@code MPI_Comm_get_parent}, {@code MPI_Intercomm_merge},
 * {@code MPI_Intercomm_create},
 * {@code MPI_Comm_disconnect}, the {@code MPI_Info} calls they need), bound by name ({@link NativeMpi#function}) the
 * first time one is used, so neither backend carries them and a process that never spawns pays nothing. Arguments go
 * through native memory of direct buffers, kept reachable until the call returns.
 */
final class DynamicProcesses {
    private final NativeMpi mpi;
    private final int handleBytes;
    private final NativeFunction spawn;
    private final NativeFunction getParent;
    private final NativeFunction merge;
    private final NativeFunction intercommCreate;
    private final NativeFunction disconnect;
    private final NativeFunction remoteSize;
    private final NativeFunction infoCreate;
    private final NativeFunction infoSet;
    private final NativeFunction infoFree;
    private final NativeFunction errorClass;
    private NativeFunction fromGroups; // guarded by this

    private DynamicProcesses(NativeMpi mpi) {
        this.mpi = mpi;
        this.handleBytes = MpiAbi.handleBytes(mpi.abi());
        this.spawn = mpi.function("MPI_Comm_spawn", "aaihihaa");
        this.getParent = mpi.function("MPI_Comm_get_parent", "a");
        this.merge = mpi.function("MPI_Intercomm_merge", "hia");
        this.intercommCreate = mpi.function("MPI_Intercomm_create", "hihiia");
        this.disconnect = mpi.function("MPI_Comm_disconnect", "a");
        this.remoteSize = mpi.function("MPI_Comm_remote_size", "ha");
        this.infoCreate = mpi.function("MPI_Info_create", "a");
        this.infoSet = mpi.function("MPI_Info_set", "haa");
        this.infoFree = mpi.function("MPI_Info_free", "a");
        this.errorClass = mpi.function("MPI_Error_class", "ia");
    }

    private static final Object LOCK = new Object();
    private static DynamicProcesses bound; // guarded by LOCK

    /** The calls of {@code mpi}'s library (bound once per backend). */
    static DynamicProcesses of(NativeMpi mpi) {
        synchronized (LOCK) {
            if (bound == null || bound.mpi != mpi) {
                bound = new DynamicProcesses(mpi);
            }
            return bound;
        }
    }

    /**
     * {@code MPI_Comm_spawn} over {@code comm} from {@code root} (only the root's request counts); returns the
     * inter-communicator's handle.
     *
     * @throws MpiException when MPI fails the call or any process could not be started
     */
    long spawn(Spawn request, int root, long comm) {
        ByteBuffer command = cString(request.argv().get(0));
        List<byte[]> args = request.argv().subList(1, request.argv().size());
        ByteBuffer[] words = new ByteBuffer[args.size()];
        ByteBuffer argv = direct(8L * (args.size() + 1));
        for (int i = 0; i < words.length; i++) {
            words[i] = cString(args.get(i));
            argv.putLong(8 * i, mpi.address(words[i]));
        }
        argv.putLong(8 * args.size(), 0L);
        ByteBuffer out = direct(8);
        ByteBuffer codes = direct(4L * request.count());
        long info = info(request.info());
        try {
            check("MPI_Comm_spawn", spawn.call(mpi.address(command), args.isEmpty() ? 0L : mpi.address(argv),
                    request.count(), info, root, comm, mpi.address(out), mpi.address(codes)));
            for (int i = 0; i < request.count(); i++) {
                int code = codes.getInt(4 * i);
                if (code != 0) {
                    throw error("MPI_Comm_spawn (process " + i + " of " + request.count() + ")", code);
                }
            }
            return handle(out);
        } finally {
            freeInfo(info);
            java.lang.ref.Reference.reachabilityFence(words);
            java.lang.ref.Reference.reachabilityFence(command);
            java.lang.ref.Reference.reachabilityFence(argv);
        }
    }

    /** {@code MPI_Comm_get_parent}: the handle, or {@link NativeMpi#commNull()} when this process was not spawned. */
    long parent() {
        ByteBuffer out = direct(8);
        check("MPI_Comm_get_parent", getParent.call(mpi.address(out)));
        return handle(out);
    }

    /** {@code MPI_Intercomm_merge}: the intra-communicator of both groups, {@code high}'s group ordered last. */
    long merge(long intercomm, boolean high) {
        ByteBuffer out = direct(8);
        check("MPI_Intercomm_merge", merge.call(intercomm, high ? 1 : 0, mpi.address(out)));
        return handle(out);
    }

    /**
     * {@code MPI_Intercomm_create}: the inter-communicator between {@code local}'s group and the group whose leader is
     * {@code remoteLeader} in {@code peer} ({@code peer} counts at the local leader only).
     */
    long intercommCreate(long local, int localLeader, long peer, int remoteLeader, int tag) {
        ByteBuffer out = direct(8);
        check("MPI_Intercomm_create", intercommCreate.call(local, localLeader, peer, remoteLeader, tag,
                mpi.address(out)));
        return handle(out);
    }

    /**
     * {@code MPI_Intercomm_create_from_groups} (MPI 4.0; Open MPI 5, bound at its first use: Open MPI 4 lacks it):
     * the inter-communicator between the processes of {@code localGroup} (every one of them calls) and those of
     * {@code remoteGroup}, matched by {@code tag}, with errors returned. No communicator carries it, so unlike
     * {@link #intercommCreate} it works while a process of their communicators has failed (ULFM), which Open MPI
     * 5.0.7 answers with {@code MPI_ERR_INTERN} for {@code MPI_Intercomm_create} over a peer communicator with a dead
     * process.
     */
    long intercommCreateFromGroups(long localGroup, int localLeader, long remoteGroup, int remoteLeader, byte[] tag) {
        NativeFunction f;
        synchronized (this) {
            if (fromGroups == null) {
                fromGroups = mpi.function("MPI_Intercomm_create_from_groups", "hihiahha");
            }
            f = fromGroups;
        }
        ByteBuffer t = cString(tag);
        ByteBuffer out = direct(8);
        try {
            check("MPI_Intercomm_create_from_groups", f.call(localGroup, localLeader, remoteGroup, remoteLeader,
                    mpi.address(t), mpi.predefined("MPI_INFO_NULL"), mpi.predefined("MPI_ERRORS_RETURN"),
                    mpi.address(out)));
            return handle(out);
        } finally {
            java.lang.ref.Reference.reachabilityFence(t);
        }
    }

    /** {@code MPI_Comm_remote_size}. */
    int remoteSize(long intercomm) {
        ByteBuffer out = direct(4);
        check("MPI_Comm_remote_size", remoteSize.call(intercomm, mpi.address(out)));
        return out.getInt(0);
    }

    /** {@code MPI_Comm_disconnect} (collective over both groups; waits for pending communication). */
    void disconnect(long comm) {
        ByteBuffer in = direct(8);
        putHandle(in, comm);
        check("MPI_Comm_disconnect", disconnect.call(mpi.address(in)));
    }

    private long info(Map<String, String> entries) {
        if (entries.isEmpty()) {
            return mpi.predefined("MPI_INFO_NULL");
        }
        ByteBuffer out = direct(8);
        check("MPI_Info_create", infoCreate.call(mpi.address(out)));
        long info = handle(out);
        try {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                ByteBuffer k = cString(NativeText.encode(e.getKey()));
                ByteBuffer v = cString(NativeText.encode(e.getValue()));
                check("MPI_Info_set(" + e.getKey() + ")", infoSet.call(info, mpi.address(k), mpi.address(v)));
                java.lang.ref.Reference.reachabilityFence(k);
                java.lang.ref.Reference.reachabilityFence(v);
            }
        } catch (MpiException e) {
            freeInfo(info);
            throw e;
        }
        return info;
    }

    private void freeInfo(long info) {
        if (info == mpi.predefined("MPI_INFO_NULL")) {
            return;
        }
        ByteBuffer in = direct(8);
        putHandle(in, info);
        infoFree.call(mpi.address(in));
    }

    private long handle(ByteBuffer out) {
        return handleBytes == 8 ? out.getLong(0) : out.getInt(0);
    }

    private void putHandle(ByteBuffer in, long handle) {
        if (handleBytes == 8) {
            in.putLong(0, handle);
        } else {
            in.putInt(0, (int) handle);
        }
    }

    private void check(String function, int rc) {
        if (rc != 0) {
            throw error(function, rc);
        }
    }

    private MpiException error(String function, int code) {
        ByteBuffer out = direct(4);
        int cls = errorClass.call(code, mpi.address(out)) == 0 ? out.getInt(0) : -1;
        return MpiErrors.exception("open-mpi".equals(mpi.abi()), function, code, cls, mpi.errorString(code));
    }

    private static ByteBuffer cString(byte[] bytes) {
        ByteBuffer b = direct(bytes.length + 1L);
        b.put(bytes).put((byte) 0).clear();
        return b;
    }

    private static ByteBuffer direct(long bytes) {
        return ByteBuffer.allocateDirect((int) Math.max(8, bytes)).order(ByteOrder.nativeOrder());
    }
}
