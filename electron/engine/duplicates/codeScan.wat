;; The vector sketch's scan (sketchScan.ts), compiled to WebAssembly for its population count
;; instruction: every stored code against every query's, 64 bits at a time, leaving a pair as soon as
;; its differing bits pass what the similarity allows for the bits compared so far. `npm run
;; build:wasm` compiles this file into codeScanModule.ts.
;;
;; Memory (all offsets in bytes, every number little-endian):
;;   codes    `words` 32-bit words per entry, entry e at codes + e * words * 4
;;   owners   one i32 per entry: its session's index, -1 for a removed entry
;;   heads    0 to scan entries 0 .. n - 1 (skipping removed ones and those of session `own`), or
;;            n entry indices (i32) to scan those alone (the heads of the code groups: no owner check)
;;   queries  `nq` codes of `words` words, one after another
;;   limits   `words` i32: the most bits the first w + 1 words of a pair may differ in (read after
;;            each two words: codes are 128 bits or a larger power of two, `words` 4 or more and even)
;;   out      (query, position in the scan, differing bits) as three i32 per pair found, at most `cap`
;; Returns the number of pairs found (more than `cap` when the output was too small: only `cap` written).
;; The pairs come scan position by scan position, each position's queries in order, so each query's
;; pairs are in increasing order of position.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $codes i32) (param $owners i32) (param $heads i32) (param $n i32) (param $own i32)
    (param $queries i32) (param $nq i32) (param $words i32) (param $limits i32)
    (param $out i32) (param $cap i32)
    (result i32)
    (local $i i32) (local $e i32) (local $owner i32) (local $o i32) (local $c0 i64)
    (local $q i32) (local $p i32) (local $d i32) (local $w i32) (local $found i32)
    (local $firstLimit i32) (local $secondLimit i32) (local $over i32) (local $c1 i64) (local $stride i32) (local $at i32)
    (local.set $stride (i32.shl (local.get $words) (i32.const 2)))
    (local.set $firstLimit (i32.load offset=4 (local.get $limits)))
    (local.set $secondLimit (i32.load offset=12 (local.get $limits)))
    (block $done
      (loop $entries
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (block $next
          (if (i32.eqz (local.get $heads))
            (then
              (local.set $e (local.get $i))
              (local.set $owner (i32.load (i32.add (local.get $owners) (i32.shl (local.get $e) (i32.const 2)))))
              (br_if $next (i32.lt_s (local.get $owner) (i32.const 0)))
              (br_if $next (i32.eq (local.get $owner) (local.get $own))))
            (else
              (local.set $e (i32.load (i32.add (local.get $heads) (i32.shl (local.get $i) (i32.const 2)))))))
          (local.set $o (i32.add (local.get $codes) (i32.mul (local.get $e) (local.get $stride))))
          ;; The first four words (128 bits) of the stored code, compared with every query's at once:
          ;; both limits are checked after both counts, with one branch (which the processor cannot
          ;; predict: many pairs of related texts pass the first limit and not the second).
          (local.set $c0 (i64.load (local.get $o)))
          (local.set $c1 (i64.load offset=8 (local.get $o)))
          (local.set $q (i32.const 0))
          (local.set $p (local.get $queries))
          (block $queriesDone
            (loop $queriesLoop
              (br_if $queriesDone (i32.ge_u (local.get $q) (local.get $nq)))
              (block $pairDone
                (local.set $d (i32.wrap_i64 (i64.popcnt (i64.xor (i64.load (local.get $p)) (local.get $c0)))))
                (local.set $over (i32.gt_u (local.get $d) (local.get $firstLimit)))
                (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor (i64.load offset=8 (local.get $p)) (local.get $c1))))))
                (br_if $pairDone (i32.or (local.get $over) (i32.gt_u (local.get $d) (local.get $secondLimit))))
                ;; Then two words (64 bits) at a time, each step checked against the limit of the bits compared so far.
                (local.set $w (i32.const 4))
                (block $wordsDone
                  (loop $wordsLoop
                    (br_if $wordsDone (i32.ge_u (local.get $w) (local.get $words)))
                    (local.set $at (i32.shl (local.get $w) (i32.const 2)))
                    (local.set $d (i32.add (local.get $d)
                      (i32.wrap_i64 (i64.popcnt (i64.xor
                        (i64.load (i32.add (local.get $p) (local.get $at)))
                        (i64.load (i32.add (local.get $o) (local.get $at))))))))
                    (br_if $pairDone (i32.gt_u (local.get $d) (i32.load offset=4 (i32.add (local.get $limits) (local.get $at)))))
                    (local.set $w (i32.add (local.get $w) (i32.const 2)))
                    (br $wordsLoop)))
                (if (i32.lt_u (local.get $found) (local.get $cap))
                  (then
                    (local.set $at (i32.add (local.get $out) (i32.mul (local.get $found) (i32.const 12))))
                    (i32.store (local.get $at) (local.get $q))
                    (i32.store offset=4 (local.get $at) (local.get $i))
                    (i32.store offset=8 (local.get $at) (local.get $d))))
                (local.set $found (i32.add (local.get $found) (i32.const 1))))
              (local.set $q (i32.add (local.get $q) (i32.const 1)))
              (local.set $p (i32.add (local.get $p) (local.get $stride)))
              (br $queriesLoop))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $entries)))
    (local.get $found)))
