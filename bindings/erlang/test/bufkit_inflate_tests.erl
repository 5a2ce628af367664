%% Inflating zlib and raw deflate streams: chained, batched, large, against Erlang's zlib, and
%% streams fed in pieces with their failures.
-module(bufkit_inflate_tests).
-include_lib("eunit/include/eunit.hrl").

inflate_chained_streams_test() ->
    A = zlib:compress(<<"hello">>),
    B = zlib:compress(binary:copy(<<"world! ">>, 1000)),
    Input = <<A/binary, B/binary, "JUNK">>,
    {ok, <<"hello">>, CA} = bufkit:inflate_at(Input, 0, 5),
    ?assertEqual(byte_size(A), CA),
    {ok, Out, CB} = bufkit:inflate_at(Input, CA, 7000),
    ?assertEqual(binary:copy(<<"world! ">>, 1000), Out),
    ?assertEqual(byte_size(B), CB).

%% A size a truncated prefix cannot reach is refused before the NIF allocates it, with the status
%% bk_inflate_at gives (it was size_mismatch from a bound of the NIF's own).
inflate_refuses_an_unreachable_size_as_the_library_does_test() ->
    Prefix = binary:part(zlib:compress(binary:copy(<<0>>, 100000)), 0, 4),
    ?assertEqual({error, truncated}, bufkit:inflate_at(Prefix, 0, 100000)),
    ?assertEqual({error, out_of_range}, bufkit:inflate_at(Prefix, 9, 5)).

inflate_failures_have_their_reasons_test() ->
    S = zlib:compress(binary:copy(<<"abc">>, 1000)),
    N = byte_size(S),
    ?assertEqual({error, truncated}, bufkit:inflate_at(binary:part(S, 0, N - 3), 0, 3000)),
    <<Body:(N - 1)/binary, Last>> = S,
    ?assertEqual({error, checksum}, bufkit:inflate_at(<<Body/binary, (Last bxor 1)>>, 0, 3000)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 2999)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 3001)),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_at(S, 0, 1 bsl 40)),
    ?assertEqual({error, out_of_range}, bufkit:inflate_at(S, N + 1, 1)),
    ?assertEqual({error, corrupt}, bufkit:inflate_at(<<16#79, (binary:part(S, 1, N - 1))/binary>>, 0, 3000)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_at(S, -1, 3000)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_at(not_a_binary, 0, 1)).

inflate_batch_test() ->
    A = zlib:compress(<<"first">>),
    B = zlib:compress(<<"second">>),
    Input = <<A/binary, B/binary>>,
    ?assertEqual([{ok, <<"first">>, byte_size(A)}, {ok, <<"second">>, byte_size(B)}, {error, out_of_range}],
                 bufkit:inflate_batch(Input, [{0, 5}, {byte_size(A), 6}, {9999, 1}])),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_batch(Input, [{0, -5}])).

inflate_large_stream_on_a_dirty_scheduler_test() ->
    Data = binary:copy(<<"0123456789abcdef">>, 1 bsl 17), % 2 MiB: inflates dirty
    S = zlib:compress(Data),
    {ok, Data, C} = bufkit:inflate_at(S, 0, byte_size(Data)),
    ?assertEqual(byte_size(S), C).

inflate_matches_erlang_zlib_test() ->
    Streams = [zlib:compress(crypto_free_bytes(N)) || N <- [0, 1, 100, 5000, 70000]],
    Input = iolist_to_binary(Streams),
    {_, Results} = lists:foldl(fun({S, N}, {Off, Acc}) ->
                                   {ok, Out, C} = bufkit:inflate_at(Input, Off, N),
                                   ?assertEqual(zlib:uncompress(S), Out),
                                   {Off + C, [C | Acc]}
                               end, {0, []}, lists:zip(Streams, [0, 1, 100, 5000, 70000])),
    ?assertEqual([byte_size(S) || S <- Streams], lists:reverse(Results)).

crypto_free_bytes(N) -> << <<((I * 7919) rem 251)>> || I <- lists:seq(1, N) >>.

%% A stream fed in pieces: exact bytes used, the total once done, the output handed over; a
%% truncated stream, a wrong size and a flipped checksum have their reasons; reset reuses it.
inflate_stream_fed_in_pieces_test_() ->
    Data = iolist_to_binary([integer_to_binary(I) || I <- lists:seq(1, 30000)]),
    Z = zlib:compress(Data),
    Input = <<Z/binary, "NEXT OBJECT">>,
    [{integer_to_list(Stride), fun() ->
        {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data)),
        {Used, Out} = feed_in_strides(S, Input, Stride, 0),
        ?assertEqual(byte_size(Z), Used),
        ?assertEqual(Data, Out),
        ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_feed(S, <<"more">>)),
        ?assertEqual(ok, bufkit:inflate_stream_finish(S))
     end} || Stride <- [1, 7, 4096, 1 bsl 20]].

feed_in_strides(S, Input, Stride, At) ->
    N = min(Stride, byte_size(Input) - At),
    case bufkit:inflate_stream_feed(S, binary:part(Input, At, N)) of
        {more, N} -> feed_in_strides(S, Input, Stride, At + N);
        {done, Used, Consumed, Out} -> Consumed = At + Used, {Consumed, Out}
    end.

inflate_stream_failures_test() ->
    Data = binary:copy(<<"0123456789">>, 5000),
    Z = zlib:compress(Data),
    {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data), 100),
    {more, _} = bufkit:inflate_stream_feed(S, binary:part(Z, 0, 10)),
    ?assertEqual({error, truncated}, bufkit:inflate_stream_finish(S)),
    ok = bufkit:inflate_stream_reset(S, byte_size(Data) - 1, 0),
    ?assertEqual({error, size_mismatch}, bufkit:inflate_stream_feed(S, Z)),
    Flipped = <<(binary:part(Z, 0, byte_size(Z) - 1))/binary, (binary:last(Z) bxor 1)>>,
    ok = bufkit:inflate_stream_reset(S, byte_size(Data), 0),
    ?assertEqual({error, checksum}, bufkit:inflate_stream_feed(S, Flipped)),
    ok = bufkit:inflate_stream_reset(S, byte_size(Data), 0),
    ?assertMatch({done, _, _, Data}, bufkit:inflate_stream_feed(S, Z)),
    Raw = zlib:zip(Data),
    {ok, R} = bufkit:inflate_stream_new(raw, byte_size(Data)),
    RawLen = byte_size(Raw),
    ?assertEqual({done, RawLen, RawLen, Data}, bufkit:inflate_stream_feed(R, <<Raw/binary, 0, 0>>)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_new(gzip, 10)),
    ?assertEqual({error, invalid_argument}, bufkit:inflate_stream_feed(S, not_a_binary)),
    ?assertError(badarg, bufkit_nif:inflate_stream_feed(make_ref(), <<1>>)).

%% A piece of 256 KiB and more is fed on a dirty scheduler; the output is the same.
inflate_stream_large_piece_test() ->
    Data = crypto:strong_rand_bytes(1 bsl 20),
    Z = zlib:compress(Data),
    {ok, S} = bufkit:inflate_stream_new(zlib, byte_size(Data)),
    ZLen = byte_size(Z),
    ?assertEqual({done, ZLen, ZLen, Data}, bufkit:inflate_stream_feed(S, Z)).
