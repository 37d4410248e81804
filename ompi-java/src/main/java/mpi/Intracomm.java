package mpi;

import java.nio.Buffer;
import org.troika.mpi.MpiException;

/**
 * An intra-communicator: {@link MPI#COMM_WORLD}, {@link MPI#COMM_SELF} and what {@link #split}, {@link #create},
 * the topology constructors and {@link Intercomm#merge} make; scans and dynamic processes.
 */
public class Intracomm extends Comm {
    protected Intracomm() {}

    protected Intracomm(long handle) {
        super(handle);
    }

    protected Intracomm(long[] commRequest) {
        super(commRequest);
    }

    @Override
    Comm wrap(long h) throws MPIException {
        return new Intracomm(h);
    }

    @Override
    public Intracomm clone() {
        return (Intracomm) super.clone();
    }

    @Override
    public Intracomm dup() throws MPIException {
        return (Intracomm) super.dup();
    }

    @Override
    public Intracomm iDup() throws MPIException {
        return (Intracomm) super.iDup();
    }

    @Override
    public Intracomm dupWithInfo(Info info) throws MPIException {
        return (Intracomm) super.dupWithInfo(info);
    }

    /** {@code MPI_Comm_split}; a color of {@link MPI#UNDEFINED} gives a null communicator ({@code isNull()}). */
    public final Intracomm split(int colour, int key) throws MPIException {
        MPI.check();
        try {
            return new Intracomm(Native.mpi.commSplit(handle, colour, key));
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Comm_split_type}: {@link Comm#TYPE_SHARED} groups the processes that share memory. */
    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        MPI.check();
        int type = splitType == TYPE_SHARED ? Native.nativeInt("MPI_COMM_TYPE_SHARED") : splitType;
        return new Intracomm(F.SPLIT_TYPE.handleOut(handle, type, key, info.handle));
    }

    /** {@code MPI_Comm_create} (collective); a null communicator on processes outside the group. */
    public final Intracomm create(Group group) throws MPIException {
        MPI.check();
        try {
            return new Intracomm(Native.mpi.commCreate(handle, group.handle));
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Comm_create_group}: collective over the group's members only. */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        MPI.check();
        return new Intracomm(F.CREATE_GROUP.handleOut(handle, group.handle, tag));
    }

    private static int[] flags(boolean[] b) {
        int[] out = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = b[i] ? 1 : 0;
        }
        return out;
    }

    /** {@code MPI_Cart_create}. */
    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        MPI.check();
        if (dims == null || periods == null || dims.length != periods.length) {
            throw new IllegalArgumentException("dims and periods must have one entry per dimension");
        }
        Scratch s = Scratch.get();
        int d = s.ints(dims);
        int p = s.ints(flags(periods));
        int out = s.handleOut();
        F.CART_CREATE.call(handle, dims.length, s.at(d), s.at(p), reorder ? 1 : 0, s.at(out));
        return new CartComm(s.getHandle(out));
    }

    /** {@code MPI_Graph_create}. */
    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder) throws MPIException {
        MPI.check();
        if (index == null || edges == null) {
            throw new IllegalArgumentException("index and edges must not be null");
        }
        Scratch s = Scratch.get();
        int i = s.ints(index);
        int e = s.ints(edges);
        int out = s.handleOut();
        F.GRAPH_CREATE.call(handle, index.length, s.at(i), s.at(e), reorder ? 1 : 0, s.at(out));
        return new GraphComm(s.getHandle(out));
    }

    private long weights(Scratch s, int[] w, int[] at) {
        if (w == null) {
            return Native.predefined("MPI_UNWEIGHTED");
        }
        at[0] = s.ints(w);
        return -1;
    }

    private GraphComm distGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info info,
            boolean reorder) throws MPIException {
        MPI.check();
        if (sources == null || degrees == null || destinations == null) {
            throw new IllegalArgumentException("sources, degrees and destinations must not be null");
        }
        Scratch s = Scratch.get();
        int src = s.ints(sources);
        int deg = s.ints(degrees);
        int dst = s.ints(destinations);
        int[] wAt = new int[1];
        long w = weights(s, weights, wAt);
        int out = s.handleOut();
        F.DIST_GRAPH_CREATE.call(handle, sources.length, s.at(src), s.at(deg), s.at(dst), w == -1 ? s.at(wAt[0]) : w,
                info.handle, reorder ? 1 : 0, s.at(out));
        return new GraphComm(s.getHandle(out));
    }

    /** {@code MPI_Dist_graph_create} with edge weights. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights,
            Info info, boolean reorder) throws MPIException {
        if (weights == null) {
            throw new IllegalArgumentException("weights is null: use the form without weights");
        }
        return distGraph(sources, degrees, destinations, weights, info, reorder);
    }

    /** {@code MPI_Dist_graph_create}, unweighted. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, Info info,
            boolean reorder) throws MPIException {
        return distGraph(sources, degrees, destinations, null, info, reorder);
    }

    private GraphComm adjacent(int[] sources, int[] sourceWeights, int[] destinations, int[] destWeights, Info info,
            boolean reorder) throws MPIException {
        MPI.check();
        if (sources == null || destinations == null) {
            throw new IllegalArgumentException("sources and destinations must not be null");
        }
        Scratch s = Scratch.get();
        int src = s.ints(sources);
        int dst = s.ints(destinations);
        int[] swAt = new int[1];
        int[] dwAt = new int[1];
        long sw = weights(s, sourceWeights, swAt);
        long dw = weights(s, destWeights, dwAt);
        int out = s.handleOut();
        F.DIST_GRAPH_ADJACENT.call(handle, sources.length, s.at(src), sw == -1 ? s.at(swAt[0]) : sw,
                destinations.length, s.at(dst), dw == -1 ? s.at(dwAt[0]) : dw, info.handle, reorder ? 1 : 0,
                s.at(out));
        return new GraphComm(s.getHandle(out));
    }

    /** {@code MPI_Dist_graph_create_adjacent} with edge weights. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
            int[] destWeights, Info info, boolean reorder) throws MPIException {
        if (sourceWeights == null || destWeights == null) {
            throw new IllegalArgumentException("weights are null: use the form without weights");
        }
        return adjacent(sources, sourceWeights, destinations, destWeights, info, reorder);
    }

    /** {@code MPI_Dist_graph_create_adjacent}, unweighted. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        return adjacent(sources, null, destinations, null, info, reorder);
    }

    // ---- scans ----

    private void scanning(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, boolean exclusive)
            throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        need(recvbuf, count, "recvbuf");
        long o = op.handle();
        op.setDatatype(type);
        try {
            if (sendbuf != null && !op.isUser() && pinnable(sendbuf) && pinnable(recvbuf)) {
                Staging.checkFits(sendbuf, count, type);
                Staging.checkFits(recvbuf, count, type);
                Native.mpi.scanHeap(sendbuf, recvbuf, count, type.handle, o, exclusive, handle);
            } else {
                Staging g = Staging.get();
                long sb = sendbuf == null ? Native.inPlace : g.arg(sendbuf, count, type, Staging.IN);
                // exscan leaves rank 0's result undefined: keep what the array held (copy it in)
                long rb = g.arg(recvbuf, count, type, sendbuf == null || exclusive ? Staging.INOUT : Staging.OUT);
                try {
                    if (exclusive) {
                        Native.mpi.exscan(sb, rb, count, type.handle, o, handle);
                    } else {
                        Native.mpi.scan(sb, rb, count, type.handle, o, handle);
                    }
                } catch (MpiException e) {
                    g.abandon();
                    throw e;
                }
                g.finish();
            }
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        op.rethrowFailure();
    }

    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        need(sendbuf, count, "sendbuf");
        scanning(sendbuf, recvbuf, count, type, op, false);
    }

    /** In-place scan. */
    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scanning(null, recvbuf, count, type, op, false);
    }

    private Request iScanning(Native.Fn fn, Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        direct(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        checkType(type);
        checkOp(op);
        if (sendbuf != null) {
            Staging.checkFits(sendbuf, count, type);
        }
        Staging.checkFits(recvbuf, count, type);
        long o = op.handle();
        op.setDatatype(type);
        Scratch s = Scratch.get();
        int out = s.handleOut();
        fn.call(sendbuf == null ? Native.inPlace : Native.address(sendbuf), Native.address(recvbuf), count,
                type.handle, o, handle, s.at(out));
        return request(s.getHandle(out), sendbuf, recvbuf);
    }

    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return iScanning(F.ISCAN, sendbuf, recvbuf, count, type, op);
    }

    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return iScanning(F.ISCAN, null, buf, count, type, op);
    }

    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        need(sendbuf, count, "sendbuf");
        scanning(sendbuf, recvbuf, count, type, op, true);
    }

    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        scanning(null, buf, count, type, op, true);
    }

    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return iScanning(F.IEXSCAN, sendbuf, recvbuf, count, type, op);
    }

    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return iScanning(F.IEXSCAN, null, buf, count, type, op);
    }

    // ---- dynamic processes ----

    public static String openPort() throws MPIException {
        return openPort(MPI.INFO_NULL);
    }

    /** {@code MPI_Open_port}. */
    public static String openPort(Info info) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int max = Native.nativeInt("MPI_MAX_PORT_NAME");
        int port = s.chars(max);
        F.OPEN_PORT.call(info.handle, s.at(port));
        return s.getString(port, max);
    }

    public static void closePort(String name) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int port = s.string(name);
        F.CLOSE_PORT.call(s.at(port));
    }

    public final Intercomm accept(String port, int root) throws MPIException {
        return accept(port, MPI.INFO_NULL, root);
    }

    /** {@code MPI_Comm_accept}. */
    public final Intercomm accept(String port, Info info, int root) throws MPIException {
        return connecting(F.ACCEPT, port, info, root);
    }

    public final Intercomm connect(String port, int root) throws MPIException {
        return connect(port, MPI.INFO_NULL, root);
    }

    /** {@code MPI_Comm_connect}. */
    public final Intercomm connect(String port, Info info, int root) throws MPIException {
        return connecting(F.CONNECT, port, info, root);
    }

    private Intercomm connecting(Native.Fn fn, String port, Info info, int root) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int p = s.string(port == null ? "" : port);
        int out = s.handleOut();
        fn.call(s.at(p), info.handle, root, handle, s.at(out));
        return new Intercomm(s.getHandle(out));
    }

    public static void publishName(String service, String port) throws MPIException {
        publishName(service, MPI.INFO_NULL, port);
    }

    /** {@code MPI_Publish_name}. */
    public static void publishName(String service, Info info, String port) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int sv = s.string(service);
        int p = s.string(port);
        F.PUBLISH_NAME.call(s.at(sv), info.handle, s.at(p));
    }

    public static void unpublishName(String service, String port) throws MPIException {
        unpublishName(service, MPI.INFO_NULL, port);
    }

    public static void unpublishName(String service, Info info, String port) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int sv = s.string(service);
        int p = s.string(port);
        F.UNPUBLISH_NAME.call(s.at(sv), info.handle, s.at(p));
    }

    public static String lookupName(String service) throws MPIException {
        return lookupName(service, MPI.INFO_NULL);
    }

    /** {@code MPI_Lookup_name}. */
    public static String lookupName(String service, Info info) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int sv = s.string(service);
        int max = Native.nativeInt("MPI_MAX_PORT_NAME");
        int port = s.chars(max);
        F.LOOKUP_NAME.call(s.at(sv), info.handle, s.at(port));
        return s.getString(port, max);
    }

    /** A NULL-terminated {@code char *argv[]} in scratch memory; returns its offset (argv null: none). */
    private static int argv(Scratch s, String[] argv) {
        int[] strings = new int[argv.length];
        for (int i = 0; i < argv.length; i++) {
            strings[i] = s.string(argv[i]);
        }
        int at = s.alloc(8L * (argv.length + 1));
        for (int i = 0; i < argv.length; i++) {
            s.buf().putLong(at + 8 * i, s.at(strings[i]));
        }
        s.buf().putLong(at + 8 * argv.length, 0L);
        return at;
    }

    /**
     * {@code MPI_Comm_spawn}. It needs a launcher that can start processes into a running job (Open MPI's
     * {@code mpirun}/{@code prterun}, MPICH's Hydra); under a launcher that cannot, the library reports the error.
     */
    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info, int root, int[] errcodes)
            throws MPIException {
        MPI.check();
        if (command == null) {
            throw new IllegalArgumentException("command is null");
        }
        if (errcodes != null && errcodes.length < maxprocs) {
            throw new IllegalArgumentException("errcodes has " + errcodes.length + " entries for " + maxprocs
                    + " processes");
        }
        Scratch s = Scratch.get();
        int cmd = s.string(command);
        int av = argv == null ? -1 : argv(s, argv);
        int codes = errcodes == null ? -1 : s.alloc(4L * maxprocs);
        int out = s.handleOut();
        F.SPAWN.call(s.at(cmd), av < 0 ? 0 : s.at(av), maxprocs, info.handle, root, handle, s.at(out),
                codes < 0 ? 0 : s.at(codes));
        if (errcodes != null) {
            int[] c = s.readInts(codes, maxprocs);
            for (int i = 0; i < maxprocs; i++) {
                errcodes[i] = Native.errorClassToJava(c[i]);
            }
        }
        return new Intercomm(s.getHandle(out));
    }

    /** {@code MPI_Comm_spawn_multiple}. */
    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs, Info[] info, int root,
            int[] errcodes) throws MPIException {
        MPI.check();
        if (commands == null || maxprocs == null || info == null || maxprocs.length != commands.length
                || info.length != commands.length || (argv != null && argv.length != commands.length)) {
            throw new IllegalArgumentException("commands, argv, maxprocs and info need one entry per command");
        }
        int total = 0;
        for (int m : maxprocs) {
            total += m;
        }
        if (errcodes != null && errcodes.length < total) {
            throw new IllegalArgumentException("errcodes has " + errcodes.length + " entries for " + total
                    + " processes");
        }
        Scratch s = Scratch.get();
        int[] cmds = new int[commands.length];
        int[] argvs = new int[commands.length];
        for (int i = 0; i < commands.length; i++) {
            cmds[i] = s.string(commands[i]);
            argvs[i] = argv == null ? -1 : argv(s, argv[i] == null ? new String[0] : argv[i]);
        }
        int cmdArray = s.alloc(8L * commands.length);
        int argvArray = argv == null ? -1 : s.alloc(8L * commands.length);
        for (int i = 0; i < commands.length; i++) {
            s.buf().putLong(cmdArray + 8 * i, s.at(cmds[i]));
            if (argvArray >= 0) {
                s.buf().putLong(argvArray + 8 * i, s.at(argvs[i]));
            }
        }
        int mp = s.ints(maxprocs);
        long[] infos = new long[info.length];
        for (int i = 0; i < infos.length; i++) {
            infos[i] = info[i].handle;
        }
        int inf = s.handles(infos);
        int codes = errcodes == null ? -1 : s.alloc(4L * total);
        int out = s.handleOut();
        F.SPAWN_MULTIPLE.call(commands.length, s.at(cmdArray), argvArray < 0 ? 0 : s.at(argvArray), s.at(mp),
                s.at(inf), root, handle, s.at(out), codes < 0 ? 0 : s.at(codes));
        if (errcodes != null) {
            int[] c = s.readInts(codes, total);
            for (int i = 0; i < total; i++) {
                errcodes[i] = Native.errorClassToJava(c[i]);
            }
        }
        return new Intercomm(s.getHandle(out));
    }

    private static final class F {
        private F() {}

        static final Native.Fn SPLIT_TYPE = Native.fn("MPI_Comm_split_type", "hiiha");
        static final Native.Fn CREATE_GROUP = Native.fn("MPI_Comm_create_group", "hhia");
        static final Native.Fn CART_CREATE = Native.fn("MPI_Cart_create", "hiaaia");
        static final Native.Fn GRAPH_CREATE = Native.fn("MPI_Graph_create", "hiaaia");
        static final Native.Fn DIST_GRAPH_CREATE = Native.fn("MPI_Dist_graph_create", "hiaaaahia");
        static final Native.Fn DIST_GRAPH_ADJACENT = Native.fn("MPI_Dist_graph_create_adjacent", "hiaaiaahia");
        static final Native.Fn ISCAN = Native.fn("MPI_Iscan", "aaihhha");
        static final Native.Fn IEXSCAN = Native.fn("MPI_Iexscan", "aaihhha");
        static final Native.Fn OPEN_PORT = Native.fn("MPI_Open_port", "ha");
        static final Native.Fn CLOSE_PORT = Native.fn("MPI_Close_port", "a");
        static final Native.Fn ACCEPT = Native.fn("MPI_Comm_accept", "ahiha");
        static final Native.Fn CONNECT = Native.fn("MPI_Comm_connect", "ahiha");
        static final Native.Fn PUBLISH_NAME = Native.fn("MPI_Publish_name", "aha");
        static final Native.Fn UNPUBLISH_NAME = Native.fn("MPI_Unpublish_name", "aha");
        static final Native.Fn LOOKUP_NAME = Native.fn("MPI_Lookup_name", "aha");
        static final Native.Fn SPAWN = Native.fn("MPI_Comm_spawn", "aaihihaa");
        static final Native.Fn SPAWN_MULTIPLE = Native.fn("MPI_Comm_spawn_multiple", "iaaaaihaa");
    }
}
