; The Sussman anomaly. Twin of problems/blocksworld/sussman.json.
(define (problem sussman)
  (:domain blocksworld)
  (:objects a b c - block)
  (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty))
  (:goal (and (on a b) (on b c))))
