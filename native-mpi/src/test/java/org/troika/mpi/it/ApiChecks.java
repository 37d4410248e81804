package org.troika.mpi.it;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.troika.mpi.Communicator;
import org.troika.mpi.Datatype;
import org.troika.mpi.Group;
import org.troika.mpi.Intercommunicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.MpiException;
import org.troika.mpi.Op;
import org.troika.mpi.Request;
import org.troika.mpi.Status;
import org.troika.mpi.ThreadLevel;

/**
 * A rank of the API job: point-to-point (blocking, non-blocking rings, probe, PROC_NULL, ANY_SOURCE, truncation),
 * non-blocking collectives, reduce/gather(v)/scatter(v)/scan/exscan on every type and root, dup/split/groups/create,
 * wtime and thread levels, and Java-side refusals, all checked against values computed in Java. With
 * {@code --large}: 64 MiB point-to-point and non-blocking transfers. Prints
 * {@code rank R abi A backend B pin P checks-passed N failed M} and exits 1 when a check failed.
 */
public final class ApiChecks extends RankChecks {
    private static final int N = 29;

    private final Communicator world;
    private final int rank;
    private final int size;
    private final int next;
    private final int prev;
    private boolean lacksFromGroups;

    private ApiChecks(Communicator world) {
        this.world = world;
        this.rank = world.rank();
        this.size = world.size();
        this.next = (rank + 1) % size;
        this.prev = (rank + size - 1) % size;
    }

    public static void main(String[] args) {
        boolean large = Arrays.asList(args).contains("--large");
        int failed;
        try (Mpi mpi = Mpi.init(ThreadLevel.FUNNELED)) {
            ApiChecks c = new ApiChecks(Mpi.world());
            c.lacksFromGroups = Arrays.asList(args).contains("--lacks-from-groups");
            c.check("thread level", Mpi.queryThread() == mpi.threadLevel()
                    && mpi.threadLevel().compareTo(ThreadLevel.FUNNELED) >= 0);
            c.runAll(large);
            for (String f : c.failures) {
                System.out.println("rank " + c.rank + " FAIL " + f);
            }
            System.out.println("rank " + c.rank + " abi " + mpi.backend().abi() + " backend "
                    + mpi.backend().getClass().getSimpleName() + " pin " + mpi.pinsArrays() + " checks-passed "
                    + c.passed + " failed " + c.failures.size());
            failed = c.failures.size();
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    private void runAll(boolean large) {
        blockingRing();
        nonBlockingRing();
        completions();
        probesAndWildcards();
        procNull();
        truncation();
        nonBlockingCollectives();
        rooted();
        scans();
        communicators();
        wtime();
        jnaStartUp();
        argumentErrors();
        if (Mpi.current().backend().getClass().getSimpleName().equals("FfmMpi")) {
            segments();
        }
        if (large) {
            large();
        }
        world.barrier();
    }

    /** Rank r's element i: distinct per rank and index, exact in every type. */
    private static long v(int r, int i) {
        return r * 1000L + i;
    }

    private static Object values(Datatype t, int r, int n) {
        return switch (t) {
            case FLOAT -> { float[] a = new float[n]; for (int i = 0; i < n; i++) a[i] = v(r, i); yield a; }
            case DOUBLE -> { double[] a = new double[n]; for (int i = 0; i < n; i++) a[i] = v(r, i); yield a; }
            case INT -> { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = (int) v(r, i); yield a; }
            case LONG -> { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = v(r, i) << 20; yield a; }
            case BYTE -> { byte[] a = new byte[n]; for (int i = 0; i < n; i++) a[i] = (byte) v(r, i); yield a; }
        };
    }

    private static Object empty(Datatype t, int n) {
        return java.lang.reflect.Array.newInstance(values(t, 0, 0).getClass().getComponentType(), n);
    }

    private static boolean same(Object a, Object b) {
        return java.util.Objects.deepEquals(new Object[] {a}, new Object[] {b});
    }

    // ---- point-to-point ----

    private Status sendrecv(Datatype t, Object send, Object recv, int dest, int source, int tag) {
        return switch (t) {
            case FLOAT -> world.sendrecv((float[]) send, dest, tag, (float[]) recv, source, tag);
            case DOUBLE -> world.sendrecv((double[]) send, dest, tag, (double[]) recv, source, tag);
            case INT -> world.sendrecv((int[]) send, dest, tag, (int[]) recv, source, tag);
            case LONG -> world.sendrecv((long[]) send, dest, tag, (long[]) recv, source, tag);
            case BYTE -> world.sendrecv((byte[]) send, dest, tag, (byte[]) recv, source, tag);
        };
    }

    private void blockingRing() {
        for (Datatype t : Datatype.values()) {
            Object recv = empty(t, N);
            Status s = sendrecv(t, values(t, rank, N), recv, next, prev, 7);
            check("sendrecv ring " + t, same(recv, values(t, prev, N)));
            check("sendrecv status " + t + " " + s, s.source() == prev && s.tag() == 7 && s.count(t) == N);
            // the same ring with plain send/recv (even sizes): even ranks send first, odd ranks receive first
            Object got = empty(t, N);
            Status r = null;
            if (size == 1) {
                r = sendrecv(t, values(t, rank, N), got, next, prev, 8);
            } else if (size % 2 == 0) {
                if (rank % 2 == 0) {
                    send(t, values(t, rank, N), next, 8);
                    r = recv(t, got, prev, 8);
                } else {
                    r = recv(t, got, prev, 8);
                    send(t, values(t, rank, N), next, 8);
                }
            }
            if (r != null) {
                check("send/recv ring " + t, same(got, values(t, prev, N)) && r.source() == prev);
            }
        }
        // buffers and raw addresses
        FloatBuffer out = floats(N);
        FloatBuffer in = floats(N);
        fillFloats(out, rank);
        Status s = world.sendrecv(out, next, 3, in, prev, 3);
        check("sendrecv buffers", matchesFloats(in, prev) && s.count(Datatype.FLOAT) == N);
        IntBuffer a = ints(N);
        IntBuffer b = ints(N);
        for (int i = 0; i < N; i++) {
            a.put(i, (int) v(rank, i));
        }
        Request rr = world.irecv(addressOf(b), N, Datatype.INT, prev, 4);
        world.send(addressOf(a), N, Datatype.INT, next, 4);
        Status st = rr.waitFor();
        boolean ok = st.source() == prev;
        for (int i = 0; i < N; i++) {
            ok &= b.get(i) == v(prev, i);
        }
        check("address send/irecv", ok);
    }

    private void send(Datatype t, Object data, int dest, int tag) {
        switch (t) {
            case FLOAT -> world.send((float[]) data, dest, tag);
            case DOUBLE -> world.send((double[]) data, dest, tag);
            case INT -> world.send((int[]) data, dest, tag);
            case LONG -> world.send((long[]) data, dest, tag);
            case BYTE -> world.send((byte[]) data, dest, tag);
        }
    }

    private Status recv(Datatype t, Object data, int source, int tag) {
        return switch (t) {
            case FLOAT -> world.recv((float[]) data, source, tag);
            case DOUBLE -> world.recv((double[]) data, source, tag);
            case INT -> world.recv((int[]) data, source, tag);
            case LONG -> world.recv((long[]) data, source, tag);
            case BYTE -> world.recv((byte[]) data, source, tag);
        };
    }

    private Request isend(Datatype t, Object data, int dest, int tag) {
        return switch (t) {
            case FLOAT -> world.isend((float[]) data, dest, tag);
            case DOUBLE -> world.isend((double[]) data, dest, tag);
            case INT -> world.isend((int[]) data, dest, tag);
            case LONG -> world.isend((long[]) data, dest, tag);
            case BYTE -> world.isend((byte[]) data, dest, tag);
        };
    }

    private Request irecv(Datatype t, Object data, int source, int tag) {
        return switch (t) {
            case FLOAT -> world.irecv((float[]) data, source, tag);
            case DOUBLE -> world.irecv((double[]) data, source, tag);
            case INT -> world.irecv((int[]) data, source, tag);
            case LONG -> world.irecv((long[]) data, source, tag);
            case BYTE -> world.irecv((byte[]) data, source, tag);
        };
    }

    /** Every rank posts receives from both neighbours and sends to both, for every type at once; then waitAll. */
    private void nonBlockingRing() {
        List<Request> requests = new ArrayList<>();
        List<Object[]> expect = new ArrayList<>();
        for (Datatype t : Datatype.values()) {
            Object fromPrev = empty(t, N);
            Object fromNext = empty(t, N + 3); // longer than the message: the status tells how much came
            requests.add(irecv(t, fromPrev, prev, 10 + t.ordinal()));
            requests.add(irecv(t, fromNext, next, 20 + t.ordinal()));
            expect.add(new Object[] {t, fromPrev, fromNext});
        }
        for (Datatype t : Datatype.values()) {
            Object mine = values(t, rank, N);
            requests.add(isend(t, mine, next, 10 + t.ordinal()));
            requests.add(isend(t, mine, prev, 20 + t.ordinal()));
            java.lang.reflect.Array.set(mine, 0, java.lang.reflect.Array.get(values(t, 99, 1), 0)); // reuse at once
        }
        Request.waitAll(requests);
        for (int k = 0; k < expect.size(); k++) {
            Datatype t = (Datatype) expect.get(k)[0];
            Object fromNext = expect.get(k)[2];
            Object want = values(t, next, N);
            boolean ok = same(expect.get(k)[1], values(t, prev, N));
            for (int i = 0; i < N; i++) {
                ok &= java.lang.reflect.Array.get(fromNext, i).equals(java.lang.reflect.Array.get(want, i));
            }
            check("non-blocking ring " + t, ok);
            check("non-blocking status " + t, requests.get(2 * k).status().source() == prev
                    && requests.get(2 * k + 1).status().count(t) == N
                    && requests.get(2 * k + 1).status().tag() == 20 + t.ordinal());
        }
        // direct buffers, polled with test()
        DoubleBuffer out = (DoubleBuffer) direct(Datatype.DOUBLE, N);
        DoubleBuffer in = (DoubleBuffer) direct(Datatype.DOUBLE, N);
        for (int i = 0; i < N; i++) {
            out.put(i, v(rank, i) + 0.5);
        }
        Request r = world.irecv(in, prev, 30);
        Request s = world.isend(out, next, 30);
        long polls = 0;
        while (!Request.testAll(r, s)) {
            polls++;
        }
        boolean ok = r.isDone() && s.isDone() && r.status().source() == prev;
        for (int i = 0; i < N; i++) {
            ok &= in.get(i) == v(prev, i) + 0.5;
        }
        check("buffer ring with test() after " + polls + " polls", ok);
    }

    /**
     * waitAny, testAny, waitSome, testSome and testAll (one MPI call each over many requests): W messages from the
     * previous rank with tags 0..W-1 and sizes 1..W, received into direct buffers and arrays; each completion is seen
     * exactly once, with its own status, and finished requests passed again are skipped.
     */
    private void completions() {
        int w = 12;
        for (String how : new String[] {"waitAny", "testAny", "waitSome", "testSome"}) {
            Request[] recvs = new Request[w];
            IntBuffer[] bufs = new IntBuffer[w];
            int[][] arrays = new int[w][];
            for (int k = 0; k < w; k++) {
                if (k % 2 == 0) {
                    bufs[k] = (IntBuffer) direct(Datatype.INT, k + 1);
                    recvs[k] = world.irecv(bufs[k], prev, k);
                } else {
                    arrays[k] = new int[k + 1];
                    recvs[k] = world.irecv(arrays[k], prev, k);
                }
            }
            Request[] sends = new Request[w];
            for (int k = w - 1; k >= 0; k--) {
                int[] data = new int[k + 1];
                Arrays.fill(data, rank * 100 + k);
                sends[k] = world.isend(data, next, k);
            }
            int[] seen = new int[w];
            while (true) {
                int[] got;
                switch (how) {
                    case "waitAny" -> {
                        int i = Request.waitAny(recvs);
                        got = i == Communicator.UNDEFINED ? null : new int[] {i};
                    }
                    case "testAny" -> {
                        int i = Request.testAny(recvs);
                        got = i == Communicator.UNDEFINED ? null : i < 0 ? new int[0] : new int[] {i};
                    }
                    case "waitSome" -> {
                        got = Request.waitSome(recvs);
                        got = got.length == 0 ? null : got;
                    }
                    default -> {
                        got = Arrays.stream(recvs).allMatch(Request::isDone) ? null : Request.testSome(recvs);
                    }
                }
                if (got == null) {
                    break;
                }
                for (int i : got) {
                    seen[i]++;
                }
            }
            boolean ok = Arrays.stream(seen).allMatch(c -> c == 1);
            for (int k = 0; k < w; k++) {
                Status st = recvs[k].status();
                ok &= st != null && st.source() == prev && st.tag() == k && st.count(Datatype.INT) == k + 1;
                for (int i = 0; i <= k; i++) {
                    ok &= (k % 2 == 0 ? bufs[k].get(i) : arrays[k][i]) == prev * 100 + k;
                }
            }
            check(how + " completes each of " + w + " receives once " + Arrays.toString(seen), ok);
            while (!Request.testAll(sends)) {
                Thread.onSpinWait();
            }
            check(how + " sends done by testAll", Arrays.stream(sends).allMatch(Request::isDone)
                    && sends[0].status() == Request.NO_MESSAGE && Request.testAll(sends)
                    && Request.waitAny(sends) == Communicator.UNDEFINED && Request.waitSome(sends).length == 0);
        }
    }

    private void probesAndWildcards() {
        if (size < 2) {
            return;
        }
        // every rank but 0 sends rank-long arrays with tag = rank; rank 0 probes, sizes its buffer, receives
        if (rank != 0) {
            world.send((int[]) values(Datatype.INT, rank, rank), 0, 100 + rank);
        } else {
            boolean[] seen = new boolean[size];
            for (int k = 1; k < size; k++) {
                Status p = world.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                int[] data = new int[p.count(Datatype.INT)];
                Status s = world.recv(data, p.source(), p.tag());
                check("probe then recv from " + p.source(), s.source() == p.source() && s.tag() == 100 + s.source()
                        && data.length == s.source() && same(data, values(Datatype.INT, s.source(), s.source())));
                seen[s.source()] = true;
            }
            boolean all = true;
            for (int k = 1; k < size; k++) {
                all &= seen[k];
            }
            check("ANY_SOURCE saw every rank", all);
        }
        world.barrier();
        // iprobe: nothing is waiting after the barrier; then a message arrives
        check("iprobe with nothing waiting", world.iprobe(Communicator.ANY_SOURCE, 555) == null);
        world.barrier();
        if (rank == 1) {
            world.send(new byte[] {1, 2, 3}, 0, 555);
        }
        if (rank == 0) {
            Status s;
            while ((s = world.iprobe(Communicator.ANY_SOURCE, 555)) == null) {
                Thread.onSpinWait();
            }
            byte[] got = new byte[8];
            Status r = world.recv(got, s.source(), 555);
            check("iprobe then recv", s.source() == 1 && s.bytes() == 3 && r.bytes() == 3 && got[2] == 3);
        }
        world.barrier();
    }

    private void procNull() {
        world.send(new float[] {1f}, Communicator.PROC_NULL, 1);
        float[] f = {42f};
        Status s = world.recv(f, Communicator.PROC_NULL, 1);
        check("recv from PROC_NULL " + s, s.source() == Communicator.PROC_NULL && s.bytes() == 0 && f[0] == 42f);
        Request r = world.irecv(f, Communicator.PROC_NULL, 1);
        Status ns = r.waitFor();
        // (MPICH 4.0.2 reports source 0, tag 0 for a completed PROC_NULL irecv, where Open MPI says PROC_NULL)
        check("irecv from PROC_NULL " + ns + " " + f[0], ns.bytes() == 0 && f[0] == 42f);
    }

    private void truncation() {
        if (size < 2) {
            return;
        }
        if (rank == 0) {
            world.send(new int[] {1, 2, 3, 4}, 1, 77);
        } else if (rank == 1) {
            try {
                world.recv(new int[2], 0, 77);
                fail("a 4-int message into a 2-int array returned normally");
            } catch (MpiException e) {
                check("truncation is an MpiException: " + e.getMessage(), e.getMessage().startsWith("MPI_Recv failed"));
            }
        }
        world.barrier();
        int[] one = {1};
        world.allreduce(one, Op.SUM);
        check("usable after a truncated receive", one[0] == size);
    }

    // ---- non-blocking collectives ----

    private void nonBlockingCollectives() {
        FloatBuffer send = floats(N);
        FloatBuffer recv = floats(N);
        fillFloats(send, rank);
        Request a = world.iallreduce(send, recv, Op.SUM);
        long[] data = (long[]) values(Datatype.LONG, rank, N);
        Request b = world.iallreduce(data, Op.MAX);
        IntBuffer bc = ints(N);
        if (rank == size - 1) {
            for (int i = 0; i < N; i++) {
                bc.put(i, (int) v(rank, i));
            }
        }
        Request c = world.ibcast(bc, size - 1);
        double[] bcArray = rank == 0 ? (double[]) values(Datatype.DOUBLE, 0, N) : new double[N];
        Request d = world.ibcast(bcArray, 0);
        int[] gathered = new int[N * size];
        Request e = world.iallgather((int[]) values(Datatype.INT, rank, N), gathered);
        LongBuffer gsend = (LongBuffer) direct(Datatype.LONG, 2);
        gsend.put(0, rank).put(1, -rank);
        LongBuffer grecv = (LongBuffer) direct(Datatype.LONG, 2 * size);
        Request f = world.iallgather(gsend, grecv);
        Request g = world.ibarrier();
        DoubleBuffer inPlace = (DoubleBuffer) direct(Datatype.DOUBLE, N);
        for (int i = 0; i < N; i++) {
            inPlace.put(i, rank + i);
        }
        Request h = world.iallreduce(addressOf(inPlace), addressOf(inPlace), N, Datatype.DOUBLE, Op.SUM);
        Request.waitAll(a, b, c, d, e, f, g, h);
        boolean ok = true;
        for (int i = 0; i < N; i++) {
            double want = 0;
            for (int r = 0; r < size; r++) {
                want += v(r, i);
            }
            ok &= recv.get(i) == (float) want && data[i] == v(size - 1, i) << 20 && bc.get(i) == v(size - 1, i)
                    && bcArray[i] == v(0, i) && inPlace.get(i) == size * (double) i + size * (size - 1) / 2.0;
        }
        check("iallreduce/ibcast/ibarrier", ok);
        boolean gok = true;
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < N; i++) {
                gok &= gathered[r * N + i] == v(r, i);
            }
            gok &= grecv.get(2 * r) == r && grecv.get(2 * r + 1) == -r;
        }
        check("iallgather arrays and buffers", gok);
    }

    // ---- rooted collectives ----

    private void rooted() {
        for (int root = 0; root < size; root++) {
            for (Datatype t : List.of(Datatype.FLOAT, Datatype.DOUBLE, Datatype.INT, Datatype.LONG)) {
                for (Op op : List.of(Op.SUM, Op.MAX)) {
                    Object in = values(t, rank, N);
                    Object out = rank == root ? empty(t, N) : null;
                    switch (t) {
                        case FLOAT -> world.reduce((float[]) in, (float[]) out, op, root);
                        case DOUBLE -> world.reduce((double[]) in, (double[]) out, op, root);
                        case INT -> world.reduce((int[]) in, (int[]) out, op, root);
                        default -> world.reduce((long[]) in, (long[]) out, op, root);
                    }
                    if (rank == root) {
                        boolean ok = true;
                        for (int i = 0; i < N; i++) {
                            long want = 0;
                            for (int r = 0; r < size; r++) {
                                long x = t == Datatype.LONG ? v(r, i) << 20 : v(r, i);
                                want = op == Op.SUM ? want + x : r == 0 ? x : Math.max(want, x);
                            }
                            ok &= ((Number) java.lang.reflect.Array.get(out, i)).longValue() == want;
                        }
                        check("reduce " + t + " " + op + " root " + root, ok);
                    }
                }
            }
            for (Datatype t : Datatype.values()) {
                Object recv = rank == root ? empty(t, N * size) : null;
                Object mine = values(t, rank, N);
                switch (t) {
                    case FLOAT -> world.gather((float[]) mine, (float[]) recv, root);
                    case DOUBLE -> world.gather((double[]) mine, (double[]) recv, root);
                    case INT -> world.gather((int[]) mine, (int[]) recv, root);
                    case LONG -> world.gather((long[]) mine, (long[]) recv, root);
                    case BYTE -> world.gather((byte[]) mine, (byte[]) recv, root);
                }
                if (rank == root) {
                    check("gather " + t + " root " + root, same(recv, concat(t, N)));
                }
                Object piece = empty(t, N);
                Object all = rank == root ? concat(t, N) : null;
                switch (t) {
                    case FLOAT -> world.scatter((float[]) all, (float[]) piece, root);
                    case DOUBLE -> world.scatter((double[]) all, (double[]) piece, root);
                    case INT -> world.scatter((int[]) all, (int[]) piece, root);
                    case LONG -> world.scatter((long[]) all, (long[]) piece, root);
                    case BYTE -> world.scatter((byte[]) all, (byte[]) piece, root);
                }
                check("scatter " + t + " root " + root, same(piece, values(t, rank, N)));
            }
            // gatherv / scatterv with unequal lengths (rank r has r + 1 elements; rank 0 of 4 ranks: 1)
            int[] mine = (int[]) values(Datatype.INT, rank, rank + 1);
            int[] g = world.gatherv(mine, root);
            int[] counts = new int[size];
            int total = 0;
            for (int r = 0; r < size; r++) {
                counts[r] = r + 1;
                total += r + 1;
            }
            if (rank == root) {
                int[] want = new int[total];
                int at = 0;
                for (int r = 0; r < size; r++) {
                    System.arraycopy(values(Datatype.INT, r, r + 1), 0, want, at, r + 1);
                    at += r + 1;
                }
                check("gatherv root " + root, Arrays.equals(g, want));
                double[] all = new double[total];
                at = 0;
                for (int r = 0; r < size; r++) {
                    System.arraycopy(values(Datatype.DOUBLE, r, r + 1), 0, all, at, r + 1);
                    at += r + 1;
                }
                double[] piece = world.scatterv(all, counts, root);
                check("scatterv root " + root, Arrays.equals(piece, (double[]) values(Datatype.DOUBLE, rank, rank + 1)));
            } else {
                check("gatherv off the root is null", g == null);
                double[] piece = world.scatterv((double[]) null, null, root);
                check("scatterv root " + root, Arrays.equals(piece, (double[]) values(Datatype.DOUBLE, rank, rank + 1)));
            }
            // buffers
            FloatBuffer s = floats(N);
            fillFloats(s, rank);
            FloatBuffer r = rank == root ? floats(N) : null;
            world.reduce(s, r, Op.SUM, root);
            FloatBuffer gr = rank == root ? floats(N * size) : null;
            world.gather(s, gr, root);
            FloatBuffer sc = floats(N);
            world.scatter(gr, sc, root);
            if (rank == root) {
                boolean ok = true;
                for (int i = 0; i < N; i++) {
                    double want = 0;
                    for (int k = 0; k < size; k++) {
                        want += v(k, i);
                        ok &= gr.get(k * N + i) == v(k, i);
                    }
                    ok &= r.get(i) == (float) want;
                }
                check("reduce/gather buffers root " + root, ok);
            }
            check("scatter buffers root " + root, matchesFloats(sc, rank));
        }
    }

    private Object concat(Datatype t, int n) {
        Object all = empty(t, n * size);
        for (int r = 0; r < size; r++) {
            System.arraycopy(values(t, r, n), 0, all, r * n, n);
        }
        return all;
    }

    private void scans() {
        for (Datatype t : List.of(Datatype.FLOAT, Datatype.DOUBLE, Datatype.INT, Datatype.LONG)) {
            Object in = values(t, rank, N);
            Object inc = empty(t, N);
            Object exc = values(t, 77, N); // rank 0 keeps this
            switch (t) {
                case FLOAT -> { world.scan((float[]) in, (float[]) inc, Op.SUM);
                    world.exscan((float[]) in, (float[]) exc, Op.SUM); }
                case DOUBLE -> { world.scan((double[]) in, (double[]) inc, Op.SUM);
                    world.exscan((double[]) in, (double[]) exc, Op.SUM); }
                case INT -> { world.scan((int[]) in, (int[]) inc, Op.SUM);
                    world.exscan((int[]) in, (int[]) exc, Op.SUM); }
                default -> { world.scan((long[]) in, (long[]) inc, Op.SUM);
                    world.exscan((long[]) in, (long[]) exc, Op.SUM); }
            }
            boolean ok = true;
            for (int i = 0; i < N; i++) {
                long before = 0;
                for (int r = 0; r < rank; r++) {
                    before += t == Datatype.LONG ? v(r, i) << 20 : v(r, i);
                }
                long self = t == Datatype.LONG ? v(rank, i) << 20 : v(rank, i);
                ok &= ((Number) java.lang.reflect.Array.get(inc, i)).longValue() == before + self;
                long wantExc = rank == 0 ? (t == Datatype.LONG ? v(77, i) << 20 : v(77, i)) : before;
                ok &= ((Number) java.lang.reflect.Array.get(exc, i)).longValue() == wantExc;
            }
            check("scan/exscan " + t, ok);
        }
        FloatBuffer s = floats(N);
        FloatBuffer r = floats(N);
        fillFloats(s, rank);
        world.scan(s, r, Op.MAX);
        check("scan buffers", matchesFloats(r, rank));
    }

    // ---- communicators and groups ----

    private void communicators() {
        try (Communicator dup = world.dup()) {
            check("dup is congruent", world.compare(dup) == Communicator.Comparison.CONGRUENT
                    && world.compare(world) == Communicator.Comparison.IDENT && dup.rank() == rank);
            // a message on the dup does not match a receive on world with the same tag
            Request onWorld = world.irecv(new int[1], prev, 5);
            int[] got = new int[1];
            dup.sendrecv(new int[] {rank}, next, 5, got, prev, 5);
            world.send(new int[] {-rank}, next, 5);
            Status s = onWorld.waitFor();
            check("dup separates traffic", got[0] == prev && s.source() == prev);
        }
        try (Group all = world.group()) {
            check("group size/rank", all.size() == size && all.rank() == rank);
            int[] reversed = new int[size];
            for (int i = 0; i < size; i++) {
                reversed[i] = size - 1 - i;
            }
            try (Group rev = all.incl(reversed); Communicator revComm = world.create(rev)) {
                check("incl + create reverses ranks", revComm != null && revComm.rank() == size - 1 - rank
                        && Arrays.equals(all.translateRanks(new int[] {0}, rev), new int[] {size - 1}));
                int[] x = {rank};
                revComm.allreduce(x, Op.SUM);
                check("allreduce on a created communicator", x[0] == size * (size - 1) / 2);
            }
            try (Group rest = all.excl(0); Communicator restComm = world.create(rest)) {
                check("excl + create leaves rank 0 out", rank == 0 ? restComm == null && rest.rank()
                        == Communicator.UNDEFINED : restComm != null && restComm.rank() == rank - 1);
            }
        }
        try (Communicator half = world.split(rank % 2, -rank)) {
            int members = (size + 1 - rank % 2) / 2;
            check("split by parity, reversed by key", half.size() == members
                    && half.rank() == members - 1 - rank / 2);
            if (size >= 2) {
                // the two halves joined through their leaders (world ranks 0 and 1: each half's last by key) and
                // merged with the odd half last: every world rank counted once, the even ranks first
                int leader = half.size() - 1;
                try (Intercommunicator both = half.intercommCreate(leader, world, rank % 2 == 0 ? 1 : 0, 71);
                        Communicator merged = both.merge(rank % 2 == 1)) {
                    int[] sum = {rank};
                    merged.allreduce(sum, Op.SUM);
                    check("intercommCreate between the halves: remote size " + both.remoteSize() + ", merged size "
                            + merged.size() + ", sum " + sum[0], both.remoteSize() == size - members
                            && merged.size() == size && sum[0] == size * (size - 1) / 2
                            && (rank % 2 == 0) == (merged.rank() < (size + 1) / 2));
                }
            }
        }
        expectIllegal("intercommCreate local leader", () -> world.intercommCreate(size, world, 0, 1));
        expectIllegal("intercommCreate tag", () -> world.intercommCreate(0, world, 0, -1));
        intercommFromGroups();
    }

    /**
     * The halves joined again, this time from their groups alone ({@code MPI_Intercomm_create_from_groups}, MPI 4.0):
     * Open MPI 5 and MPICH 4 have it, Open MPI 4 does not ({@code --lacks-from-groups}), where the call must say so.
     */
    private void intercommFromGroups() {
        if (size < 2) {
            return;
        }
        try (Group all = world.group(); Group mine = all.incl(parity(rank % 2));
                Group theirs = all.incl(parity(1 - rank % 2))) {
            expectIllegal("from_groups local leader", () -> Mpi.intercommCreateFromGroups(mine, mine.size(), theirs, 0,
                    "api-checks"));
            expectIllegal("from_groups remote leader", () -> Mpi.intercommCreateFromGroups(mine, 0, theirs, -1,
                    "api-checks"));
            expectIllegal("from_groups tag with a space", () -> Mpi.intercommCreateFromGroups(mine, 0, theirs, 0,
                    "api checks"));
            // each half's leader is its smallest world rank, the last of its descending group
            try (Intercommunicator both = Mpi.intercommCreateFromGroups(mine, mine.size() - 1, theirs,
                    theirs.size() - 1, "api-checks-halves"); Communicator merged = both.merge(rank % 2 == 1)) {
                int[] sum = {rank};
                merged.allreduce(sum, Op.SUM);
                check("intercommCreateFromGroups between the halves: remote size " + both.remoteSize() + ", sum "
                        + sum[0] + (lacksFromGroups ? " where the library should lack it" : ""), !lacksFromGroups
                        && both.remoteSize() == theirs.size() && merged.size() == size
                        && sum[0] == size * (size - 1) / 2 && (rank % 2 == 0) == (merged.rank() < (size + 1) / 2));
            } catch (UnsupportedOperationException e) {
                check("intercommCreateFromGroups unsupported: " + e.getMessage(), lacksFromGroups
                        && e.getMessage().contains("MPI_Intercomm_create_from_groups"));
            }
        }
    }

    /** The world ranks of one parity, largest first (the order of a split keyed by {@code -rank}). */
    private int[] parity(int p) {
        int[] ranks = new int[(size + 1 - p) / 2];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = size - 1 - (size - 1 - p) % 2 - 2 * i;
        }
        return ranks;
    }

    private void wtime() {
        double t0 = Mpi.wtime();
        long n0 = System.nanoTime();
        while (System.nanoTime() - n0 < 20_000_000L) {
            Thread.onSpinWait();
        }
        double t1 = Mpi.wtime();
        check("wtime advances with the clock: " + (t1 - t0), t1 - t0 >= 0.015 && t1 - t0 < 60);
    }

    /**
     * On the JNA backend, JNA started the lean way (issue 25.3): its library path came from ld.so.conf (no ldconfig
     * process) and its native part from troika's private cache, not from a new temporary file.
     */
    private void jnaStartUp() {
        if (!Mpi.current().backend().getClass().getName().contains(".jna.")) {
            return;
        }
        check("JNA's library path set before JNA started", System.getProperty("jna.platform.library.path") != null);
        boolean cache = System.getenv("HOME") != null || System.getenv("XDG_CACHE_HOME") != null;
        String dispatch = String.valueOf(System.getProperty("jnidispatch.path"));
        check("JNA's native part from troika's cache: " + dispatch, !cache || dispatch.contains("/troika/jna/"));
    }

    private void argumentErrors() {
        expectIllegal("dest = size", () -> world.send(new int[1], size, 0));
        expectIllegal("negative dest", () -> world.send(new int[1], -5, 0));
        expectIllegal("ANY_SOURCE as dest", () -> world.send(new int[1], Communicator.ANY_SOURCE, 0));
        expectIllegal("negative tag", () -> world.send(new int[1], 0, -3));
        expectIllegal("tag above MPI_TAG_UB", () -> world.send(new int[1], 0, world.tagUpperBound() + 1));
        expectIllegal("ANY_TAG on a send", () -> world.isend(new int[1], 0, Communicator.ANY_TAG));
        expectIllegal("heap buffer isend", () -> world.isend(FloatBuffer.allocate(2), 0, 0));
        expectIllegal("read-only irecv", () -> world.irecv(floats(2).asReadOnlyBuffer(), 0, 0));
        expectIllegal("null address recv", () -> world.recv(0L, 4, Datatype.INT, 0, 0));
        expectIllegal("reduce root", () -> world.reduce(new int[1], new int[1], Op.SUM, size));
        expectIllegal("reduce out on root", () -> world.reduce(new int[2], null, Op.SUM, rank));
        expectIllegal("gather recv length", () -> world.gather(new int[2], new int[2 * size + 1], rank));
        expectIllegal("scatter send length", () -> world.scatter(new long[size + 1], new long[1], rank));
        expectIllegal("scatterv counts length", () -> world.scatterv(new int[3], new int[size + 1], rank));
        expectIllegal("scatterv counts sum", () -> world.scatterv(new int[3], new int[size], rank));
        expectIllegal("scan in place", () -> { int[] x = new int[1]; world.scan(x, x, Op.SUM); });
        expectIllegal("iallgather recv", () -> world.iallgather(new int[2], new int[2 * size - 1]));
        expectIllegal("iallreduce bytes", () -> world.iallreduce(ByteBuffer.allocateDirect(4), Op.SUM));
        expectIllegal("split color", () -> world.split(-7, 0));
        expectIllegal("incl out of range", () -> { try (Group g = world.group()) { g.incl(size); } });
        world.barrier(); // still in step after the rejected calls
        passed++;
    }

    /**
     * The FFM-only {@code Segments} calls on off-heap segments (reflectively: this class is compiled for JDK 17 and
     * runs on JDK 25 in the FFM jobs): allreduce, a send/recv ring, iallreduce, and a heap segment refused.
     */
    private void segments() {
        try {
            Class<?> arenaClass = Class.forName("java.lang.foreign.Arena");
            Class<?> seg = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> segs = Class.forName("org.troika.mpi.ffm.Segments");
            try (AutoCloseable arena = (AutoCloseable) arenaClass.getMethod("ofConfined").invoke(null)) {
                java.lang.reflect.Method allocate = arenaClass.getMethod("allocate", long.class, long.class);
                Object send = allocate.invoke(arena, 4L * N, 8L);
                Object recv = allocate.invoke(arena, 4L * N, 8L);
                java.lang.reflect.Method asBuffer = seg.getMethod("asByteBuffer");
                FloatBuffer s = ((ByteBuffer) asBuffer.invoke(send)).order(ByteOrder.nativeOrder()).asFloatBuffer();
                FloatBuffer r = ((ByteBuffer) asBuffer.invoke(recv)).order(ByteOrder.nativeOrder()).asFloatBuffer();
                fillFloats(s, rank);
                segs.getMethod("allreduce", Communicator.class, seg, seg, Datatype.class, Op.class)
                        .invoke(null, world, send, recv, Datatype.FLOAT, Op.MAX);
                check("segment allreduce", matchesFloats(r, size - 1));
                Request in = (Request) segs.getMethod("irecv", Communicator.class, seg, Datatype.class, int.class,
                        int.class).invoke(null, world, recv, Datatype.FLOAT, prev, 40);
                segs.getMethod("send", Communicator.class, seg, Datatype.class, int.class, int.class)
                        .invoke(null, world, send, Datatype.FLOAT, next, 40);
                check("segment ring", in.waitFor().count(Datatype.FLOAT) == N && matchesFloats(r, prev));
                Request a = (Request) segs.getMethod("iallreduce", Communicator.class, seg, seg, Datatype.class,
                        Op.class).invoke(null, world, send, recv, Datatype.FLOAT, Op.MIN);
                a.waitFor();
                check("segment iallreduce", matchesFloats(r, 0));
                Object heap = seg.getMethod("ofArray", float[].class).invoke(null, (Object) new float[4]);
                try {
                    segs.getMethod("allreduce", Communicator.class, seg, Datatype.class, Op.class)
                            .invoke(null, world, heap, Datatype.FLOAT, Op.SUM);
                    fail("a heap segment was accepted");
                } catch (java.lang.reflect.InvocationTargetException e) {
                    check("heap segment refused", e.getCause() instanceof IllegalArgumentException);
                }
            }
        } catch (Exception e) {
            fail("segments: " + e);
        }
    }

    private void large() {
        int n = 16 << 20; // 64 MiB of floats
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = (i % 13) + rank;
        }
        float[] in = new float[n];
        world.sendrecv(out, next, 9, in, prev, 9);
        boolean ok = true;
        for (int i = 0; i < n && ok; i++) {
            ok = in[i] == (i % 13) + prev;
        }
        check("64 MiB array sendrecv ring", ok);
        FloatBuffer bout = floats(n);
        FloatBuffer bin = floats(n);
        for (int i = 0; i < n; i++) {
            bout.put(i, (i % 11) * (rank + 1));
        }
        Request r = world.irecv(bin, prev, 9);
        Request s = world.isend(bout, next, 9);
        Request.waitAll(s, r);
        ok = r.status().count(Datatype.FLOAT) == n;
        for (int i = 0; i < n && ok; i++) {
            ok = bin.get(i) == (i % 11) * (prev + 1);
        }
        check("64 MiB buffer isend/irecv ring", ok);
        Request a = world.iallreduce(bout, bin, Op.SUM);
        a.waitFor();
        ok = true;
        for (int i = 0; i < n && ok; i++) {
            ok = bin.get(i) == (i % 11) * (size * (size + 1) / 2f);
        }
        check("64 MiB iallreduce", ok);
    }

    // ---- helpers ----

    private static FloatBuffer floats(int n) {
        return (FloatBuffer) direct(Datatype.FLOAT, n);
    }

    private static IntBuffer ints(int n) {
        return (IntBuffer) direct(Datatype.INT, n);
    }

    private static void fillFloats(FloatBuffer b, int r) {
        for (int i = 0; i < b.limit(); i++) {
            b.put(i, v(r, i));
        }
    }

    private static boolean matchesFloats(FloatBuffer b, int r) {
        for (int i = 0; i < b.limit(); i++) {
            if (b.get(i) != v(r, i)) {
                return false;
            }
        }
        return true;
    }

}
