%% The seed's workload as an iolist, for the iolist benches here: 700,000 strings of 20-30
%% lowercase letters (a fixed seed, so every run builds the same bytes) as the iolist of their
%% external-term encoding, the bytes term_to_binary/1 makes of the list of strings (19.6 MB).
%% `binaries': each string a binary after a 3-byte header binary; `chars': each string the
%% character list itself, after the byte 107 and a 2-byte length binary. Also the bufkit calls
%% those benches time and check: an append into a fresh buffer, and the bytes it holds after one.
-module(seed_iolist).
-export([strings/0, iolist/2, append_to_fresh_buffer/1, appended_bytes/1]).

strings() ->
    rand:seed(exsss, {1, 2, 3}),
    [[$a + rand:uniform(25) || _ <- lists:seq(1, 19 + rand:uniform(11))] || _ <- lists:seq(1, 700000)].

iolist(binaries, Strings) ->
    [131, 108, <<700000:32>>, [[<<107, (length(S)):16>>, list_to_binary(S)] || S <- Strings], 106];
iolist(chars, Strings) ->
    [131, 108, <<700000:32>>, [[107, <<(length(S)):16>>, S] || S <- Strings], 106].

%% What a caller writes to encode one message: a fresh buffer, one append, the buffer freed.
append_to_fresh_buffer(Data) ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, Data),
    ok = bufkit:buffer_free(B).

%% The bytes a fresh buffer holds after appending Data, to check a bench's bytes.
appended_bytes(Data) ->
    {ok, B} = bufkit:buffer_new(),
    ok = bufkit:buffer_append(B, Data),
    {ok, Bytes} = bufkit:buffer_to_binary(B),
    ok = bufkit:buffer_free(B),
    Bytes.
