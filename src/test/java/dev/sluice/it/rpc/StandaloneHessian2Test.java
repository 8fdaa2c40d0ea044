package dev.sluice.it.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.DubboEncoder;
import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesChecks;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SluiceClient against SluiceServer in hessian2, Dubbo 3.3's default serialization (issue 9). */
@Timeout(120)
class StandaloneHessian2Test {
    @Test
    void everyValueTypeRoundTripsInHessian2() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .serialization(Serialization.HESSIAN2).timeout(Duration.ofSeconds(5)).build()) {
            TypesChecks.all(client.proxy(TypesService.class));
        }
    }

    @Test
    void theBenchmarkMethodsInHessian2() {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(UserService.class, new UserServiceServerImpl()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(5)).build()) {
            UserService users = client.reference(UserService.class).serialization(Serialization.HESSIAN2).proxy();
            assertTrue(users.existUser("7"));
            assertTrue(users.createUser(new UserServiceServerImpl().getUser(42)));
            User u = users.getUser(7);
            assertEquals(new UserServiceServerImpl().getUser(7).getAddress(), u.getAddress());
            Page<User> page = users.listUser(3);
            assertEquals(15, page.getResult().size());
            assertEquals(User.class, page.getResult().get(14).getClass());
        }
    }

    /** One server, one connection, both serializations: each call is answered in the one it arrived in. */
    @Test
    void eachCallIsAnsweredInItsOwnSerialization() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(UserService.class, new UserServiceServerImpl()).start();
             Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
            raw.setSoTimeout(5_000);
            DubboMethod exist = DubboMethod.of(UserService.class.getName(), null, "existUser", "Ljava/lang/String;");
            Map<String, Object> attachments = new HashMap<>();
            attachments.put("path", UserService.class.getName());
            byte[] hessian2 = encode(DubboRequest.invocation(1L, true, DubboConstants.SERIALIZATION_HESSIAN2, exist,
                    new Object[] {"7"}, attachments));
            byte[] fastjson2 = encode(DubboRequest.invocation(2L, true, DubboConstants.SERIALIZATION_FASTJSON2, exist,
                    new Object[] {"7"}, attachments));
            raw.getOutputStream().write(hessian2);
            raw.getOutputStream().flush();
            // hessian2: flags 0x02 (response, id 2), status 20, body = int 4, T, {"dubbo": "2.0.2"}.
            byte[] body = readResponse(raw.getInputStream(), 1L, 0x02);
            assertArrayEquals(new byte[] {(byte) 0x94, 'T', 'H', 5, 'd', 'u', 'b', 'b', 'o', 5, '2', '.', '0', '.',
                '2', 'Z'}, body);
            raw.getOutputStream().write(fastjson2);
            raw.getOutputStream().flush();
            readResponse(raw.getInputStream(), 2L, 0x17);
        }
    }

    @Test
    void aServerThatAcceptsOnlyFastjson2SaysSoToAHessian2Caller() {
        try (SluiceServer server = SluiceServer.builder().port(0).serializations(Serialization.FASTJSON2)
                .register(UserService.class, new UserServiceServerImpl()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .serialization(Serialization.HESSIAN2).timeout(Duration.ofSeconds(5)).build()) {
            UserService hessian = client.proxy(UserService.class);
            RpcException e = assertThrows(RpcException.class, () -> hessian.existUser("7"));
            assertEquals(DubboConstants.STATUS_BAD_REQUEST, e.status());
            assertTrue(e.getMessage().contains("hessian2, id 2, is not accepted") && e.getMessage().contains(
                    "accepts fastjson2"), e.getMessage());
            UserService fastjson = client.reference(UserService.class).serialization(Serialization.FASTJSON2).proxy();
            assertTrue(fastjson.existUser("7"), "the same connection still serves fastjson2");
        }
    }

    private static byte[] encode(DubboRequest request) {
        ByteBuf buf = Unpooled.buffer();
        try {
            new DubboEncoder(8 << 20).encode(request, buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** Reads one response frame, checks its id, flags and status 20, and returns its body. */
    private static byte[] readResponse(InputStream in, long id, int flags) throws Exception {
        DataInputStream data = new DataInputStream(in);
        assertEquals((short) 0xdabb, data.readShort());
        assertEquals(flags, data.readUnsignedByte(), "flags");
        assertEquals(20, data.readUnsignedByte(), "status");
        assertEquals(id, data.readLong());
        byte[] body = new byte[data.readInt()];
        data.readFully(body);
        return body;
    }
}
