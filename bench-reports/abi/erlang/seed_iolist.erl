%% The seed's workload as an iolist, for the iolist benches here: 700,000 strings of 20-30
%% lowercase letters (a fixed seed, so every run builds the same bytes) as the iolist of their
%% external-term encoding, the bytes term_to_binary/1 makes of the list of strings (19.6 MB).
%% `binaries': each string a binary after a 3-byte header binary; `chars': each string the
%% character list itself, after the byte 107 and a 2-byte length binary.
-module(seed_iolist).
-export([strings/0, iolist/2]).

strings() ->
    rand:seed(exsss, {1, 2, 3}),
    [[$a + rand:uniform(25) || _ <- lists:seq(1, 19 + rand:uniform(11))] || _ <- lists:seq(1, 700000)].

iolist(binaries, Strings) ->
    [131, 108, <<700000:32>>, [[<<107, (length(S)):16>>, list_to_binary(S)] || S <- Strings], 106];
iolist(chars, Strings) ->
    [131, 108, <<700000:32>>, [[107, <<(length(S)):16>>, S] || S <- Strings], 106].
