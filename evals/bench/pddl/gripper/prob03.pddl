; IPC 1998 gripper prob03 (8 balls), typed. Twin of problems/gripper/prob03.json.
(define (problem gripper-prob03)
  (:domain gripper)
  (:objects rooma roomb - room
            ball1 ball2 ball3 ball4 ball5 ball6 ball7 ball8 - ball
            left right - gripper)
  (:init (at-robby rooma)
         (free left) (free right)
         (at ball1 rooma) (at ball2 rooma) (at ball3 rooma) (at ball4 rooma)
         (at ball5 rooma) (at ball6 rooma) (at ball7 rooma) (at ball8 rooma))
  (:goal (and (at ball1 roomb) (at ball2 roomb) (at ball3 roomb) (at ball4 roomb) (at ball5 roomb) (at ball6 roomb) (at ball7 roomb) (at ball8 roomb))))
